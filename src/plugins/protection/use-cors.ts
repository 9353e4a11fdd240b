/**
 * CORS on yoga's path (edge/headers/cors.ts says which headers), in two plugins, because their
 * two jobs need two places among the others (app/gateway.ts):
 *
 * - `useCorsPreflight` answers every `OPTIONS` request with 204 and an empty body (Safari waits
 *   for a body without `Content-Length: 0`). Put it first, where yoga's own CORS answered them:
 *   a preflight carries no API key, counts for no rate limit and writes no request log line.
 * - `useCorsHeaders` adds the CORS headers and `Origin` to `Vary` on every answer, preflights
 *   included. Put it last: it reads the `Cache-Control` and `Vary` every other plugin wrote (the
 *   stored answer's, HTTP caching's, compression's, a static file's) and adds to them.
 *
 * With CORS off (`CORS_ORIGINS=none`) both are empty: an `OPTIONS` request is then answered as
 * any other method is.
 */
import type { Plugin } from 'graphql-yoga';
import type { Cors } from '../../edge/headers/cors.js';

export function useCorsPreflight(cors: Cors): Plugin {
  if (!cors.on) return {};
  return {
    onRequest({ request, fetchAPI, endResponse }) {
      if (request.method.toUpperCase() === 'OPTIONS') endResponse(new fetchAPI.Response(null, { status: 204, headers: { 'content-length': '0' } }));
    },
  };
}

export function useCorsHeaders(cors: Cors): Plugin {
  if (!cors.on) return {};
  return {
    onResponse({ request, response }) {
      const headers = cors.headersFor(request.headers, { vary: response.headers.get('vary'), cacheControl: response.headers.get('cache-control') });
      // Deleted first: @whatwg-node's Headers, built from an object with a capitalised name, would keep both.
      for (const name in headers) {
        response.headers.delete(name);
        response.headers.set(name, headers[name]!);
      }
    },
  };
}
