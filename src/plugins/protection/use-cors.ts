/**
 * CORS on yoga's path (headers: encoding/cors.ts), in two plugins for two places:
 * `useCorsPreflight`, first, answers `OPTIONS` with 204 and `Content-Length: 0` before any key or
 * rate limit; `useCorsHeaders`, last, adds its headers to the `Cache-Control` and `Vary` every
 * other plugin wrote. With CORS off both are empty.
 */
import type { Plugin } from 'graphql-yoga';
import type { Cors } from '../../encoding/cors.js';

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
