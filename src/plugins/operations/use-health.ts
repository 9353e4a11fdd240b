/**
 * `GET /healthz`: the process is alive (answers at once, checks nothing).
 *
 * `GET /readyz`: the gateway can serve, that is, an upstream token can be obtained (the cached
 * one, or a fresh one): 200 `{ status: 'ready', breakers }`, else 503
 * `{ status: 'unavailable', code, breakers }`: the token endpoint fails, or the upstream refuses
 * every fresh token (`UPSTREAM_AUTH_FAILED`, for as long as the token manager backs off from
 * that, 1 s doubling to 30 s while the refusals go on). `breakers` is the circuit state of every upstream
 * operation called so far (`closed`, `open`, `half-open`). An open circuit does not make the
 * gateway unready: it still serves cached data and every other operation, and every replica
 * shares the same upstream, so taking this one out of rotation would help nobody.
 *
 * With Redis configured, both answers to /readyz say `redis: 'up' | 'down'`. Redis down leaves
 * the gateway ready too: it caches in-process and uses its own token meanwhile.
 */
import type { Plugin } from 'graphql-yoga';
import type { UpstreamClient } from '../../upstream/contracts.js';
import { isUpstreamError } from '../../upstream/errors.js';

/** Liveness: answers at once, checks nothing (the Kubernetes liveness probe and the image's HEALTHCHECK). */
export const HEALTH_PATH = '/healthz';
/** Readiness: an upstream token can be obtained (the Kubernetes readiness probe). */
export const READINESS_PATH = '/readyz';

export function useHealth(client: Pick<UpstreamClient, 'tokens' | 'breakerStates'>, redisState?: () => 'up' | 'down'): Plugin {
  const details = () => ({ breakers: client.breakerStates(), ...(redisState ? { redis: redisState() } : {}) });
  return {
    async onRequest({ url, endResponse, fetchAPI }) {
      if (url.pathname === HEALTH_PATH) {
        endResponse(fetchAPI.Response.json({ status: 'ok' }));
        return;
      }
      if (url.pathname !== READINESS_PATH) return;
      try {
        await client.tokens.getToken();
        endResponse(fetchAPI.Response.json({ status: 'ready', ...details() }));
      } catch (error) {
        const code = isUpstreamError(error) ? error.code : 'INTERNAL_SERVER_ERROR';
        endResponse(fetchAPI.Response.json({ status: 'unavailable', code, ...details() }, { status: 503 }));
      }
    },
  };
}
