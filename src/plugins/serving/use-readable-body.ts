/**
 * A GraphQL request whose body the gateway cannot read gets a coded refusal, not yoga's bare one:
 * 415 `UNSUPPORTED_MEDIA_TYPE` with the media types it reads (JSON, `application/graphql`, a form,
 * or a GET). yoga answers such a request with an empty 415, and a multipart body (file uploads,
 * which this read-only graph has none of; yoga's multipart reading is off) with a 500.
 *
 * Put it after CSRF prevention, whose 403 for a cross-site-capable body comes first.
 */
import type { Plugin } from 'graphql-yoga';
import { errorResponse } from './error-response.js';

const READABLE = 'application/json, application/graphql+json, application/graphql, application/x-www-form-urlencoded';

export function useReadableBody(): Plugin {
  return {
    onRequestParse({ requestParser, endResponse, fetchAPI }) {
      if (requestParser !== undefined) return;
      endResponse(errorResponse(fetchAPI, 415, {
        message: `The request body must be one of: ${READABLE}; or send a GET`,
        code: 'UNSUPPORTED_MEDIA_TYPE',
      }, { accept: READABLE }));
    },
  };
}
