/**
 * CORS headers on yoga's path (headers: encoding/cors.ts), last: added to the `Cache-Control` and
 * `Vary` every other plugin wrote. With CORS off, nothing. A preflight is a page's (pages/pages.ts).
 */
import type { Plugin } from 'graphql-yoga';
import type { Cors } from '../../encoding/cors.js';

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
