/**
 * A GraphQL request whose body or parameters the gateway cannot read gets a coded refusal, not
 * yoga's bare one (an empty 415, or a 500 for the client's mistake): 405 `METHOD_NOT_ALLOWED`
 * for another method than GET or POST, 415 `UNSUPPORTED_MEDIA_TYPE` for a media type it does not
 * read, 400 `BAD_REQUEST` for parameters that are not JSON, without the `originalError` that
 * would quote the client's bytes back. Runs after CSRF prevention.
 */
import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { coded } from '../../base/graph-errors.js';
import { OTHER_METHOD, UNREADABLE_BODY } from '../../admission/route.js';
import { refusalResponse } from '../../admission/refusal-writer.js';
import { requestIn } from '../../request/request.js';

type RequestParser = (request: Request) => unknown;

export function useReadableBody(): Plugin {
  return {
    onRequestParse({ request, requestParser, setRequestParser, endResponse, fetchAPI, serverContext }) {
      if (requestParser !== undefined) return setRequestParser(readable(requestParser) as typeof requestParser);
      // Another method than GET or POST is refused as such, whatever its body.
      const refused = request.method !== 'GET' && request.method !== 'POST' ? OTHER_METHOD : UNREADABLE_BODY;
      requestIn(serverContext)?.errorCodes.add(refused.code);
      endResponse(refusalResponse(fetchAPI, refused));
    },
  };
}

// Private: `parse`, with its failures turned into what the client is told.
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

// Private: 400 whatever the `Accept`: a malformed GraphQL-over-HTTP request gets a 4xx even as JSON.
function badRequest(message: string): GraphQLError {
  return coded('BAD_REQUEST', message);
}
