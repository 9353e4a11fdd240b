/**
 * The HTTP caching headers (encoding/http-caching.ts) on yoga's path: every GraphQL answer gets
 * what the one rule decides; a preflight (CORS off) gets `no-store` when refused. `ETag`
 * and `304` stay the response cache's (use-response-cache.ts).
 */
import type { Plugin } from 'graphql-yoga';
import { requestIn } from '../../request/request.js';
import { ambiguousRequest } from '../../response-cache/key.js';
import type { CachingHeaders } from '../../encoding/http-caching.js';

export function useHttpCaching(caching: CachingHeaders): Plugin {
  return {
    onResponse({ request, response, serverContext }) {
      const url = new URL(request.url, 'http://localhost');
      const gatewayRequest = requestIn(serverContext);
      if (request.method === 'OPTIONS') {
        if (response.status >= 400 && !response.headers.has('cache-control')) response.headers.set('cache-control', 'no-store');
        return;
      }
      const headers = caching(gatewayRequest, {
        method: request.method, status: response.status, contentType: response.headers.get('content-type'),
        ambiguous: ambiguousRequest(request, url), vary: response.headers.get('vary'),
      });
      // Deleted first: a name set alone keeps another spelling of it.
      for (const name in headers) {
        response.headers.delete(name);
        response.headers.set(name, headers[name]!);
      }
    },
  };
}
