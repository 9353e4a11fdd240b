/**
 * A GraphQL request whose body or parameters the gateway cannot read gets a coded refusal, not
 * yoga's bare one:
 *
 * - 415 `UNSUPPORTED_MEDIA_TYPE` with the media types it reads (JSON, `application/graphql`, a
 *   form, or a GET). yoga answers such a request with an empty 415, and a multipart body (file
 *   uploads, which this read-only graph has none of; yoga's multipart reading is off) with a 500.
 * - 400 `BAD_REQUEST` for `variables` or `extensions` that are not JSON, in a GET's query string
 *   or a form: yoga's parser lets `JSON.parse` throw, which it answers with a 500 and an
 *   error-level log line with a stack, for what is the client's mistake.
 * - yoga's own 400 for a body that is not JSON, without the `extensions.originalError` it adds:
 *   the parser's message, which quotes the client's bytes back.
 *
 * Put it after CSRF prevention, whose 403 for a cross-site-capable body comes first.
 */
import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { coded } from '../../base/graph-errors.js';
import { UNREADABLE_BODY } from '../../edge/admission/route.js';
import { refusalResponse } from '../../edge/refusal-writer.js';

type RequestParser = (request: Request) => unknown;

export function useReadableBody(): Plugin {
  return {
    onRequestParse({ requestParser, setRequestParser, endResponse, fetchAPI }) {
      if (requestParser !== undefined) return setRequestParser(readable(requestParser) as typeof requestParser);
      endResponse(refusalResponse(fetchAPI, UNREADABLE_BODY));
    },
  };
}

// Private: `parse`, with its failures turned into what the client is told (see above).
function readable(parse: RequestParser): RequestParser {
  return (request) => {
    let params: unknown;
    try {
      params = parse(request);
    } catch (error) {
      throw unreadable(error);
    }
    // yoga's parsers may answer a thenable that is no Promise instance.
    if (typeof (params as PromiseLike<unknown> | undefined)?.then !== 'function') return params;
    return Promise.resolve(params).catch((error: unknown) => Promise.reject(unreadable(error)));
  };
}

function unreadable(error: unknown): unknown {
  // `JSON.parse` of a query string's or a form's `variables` or `extensions`.
  if (error instanceof SyntaxError) return badRequest('The variables or extensions parameter is not valid JSON');
  if (!(error instanceof GraphQLError) || error.extensions.originalError === undefined) return error;
  return badRequest(error.message);
}

// Private: 400 whatever the `Accept`: a request that is not well-formed GraphQL over HTTP gets a
// 4xx even as `application/json` (the spec's `http.spec` flag, which yoga sets, would make it 200).
function badRequest(message: string): GraphQLError {
  return coded('BAD_REQUEST', message);
}
