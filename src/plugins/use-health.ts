/**
 * `GET /healthz`: the process is alive. `GET /readyz`: the gateway can serve, that is, an
 * upstream token can be obtained (the cached one, or a fresh one).
 */
import type { Plugin } from 'graphql-yoga';
import type { TokenManager } from '../upstream/contracts.js';
import { isUpstreamError } from '../upstream/errors.js';

export function useHealth(tokens: TokenManager): Plugin {
  return {
    async onRequest({ url, endResponse, fetchAPI }) {
      if (url.pathname === '/healthz') {
        endResponse(fetchAPI.Response.json({ status: 'ok' }));
        return;
      }
      if (url.pathname !== '/readyz') return;
      try {
        await tokens.getToken();
        endResponse(fetchAPI.Response.json({ status: 'ready' }));
      } catch (error) {
        const code = isUpstreamError(error) ? error.code : 'INTERNAL_SERVER_ERROR';
        endResponse(fetchAPI.Response.json({ status: 'unavailable', code }, { status: 503 }));
      }
    },
  };
}
