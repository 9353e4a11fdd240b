/**
 * `GET /healthz`: the process is alive (answers at once, checks nothing).
 *
 * `GET /readyz`: this replica can answer requests: 200 `{ status: 'ready', upstream, breakers }`
 * until the gateway stops (SIGTERM: `Gateway.drain`), then 503 `{ status: 'stopping', … }`. It
 * says nothing of the upstream's health on purpose: every replica shares the one upstream and its
 * token endpoint, so an upstream failure would take the whole fleet out of the load balancer at
 * once, though cached data, the catalog index and every operation that needs no new upstream
 * call could still be served. What the upstream is doing is in the details, and in the metrics:
 *
 * - `upstream.token`: `ok` (a token is held), `pending` (one is being requested), `none`, or
 *   `failing` with the `code` of the last failed token request (`UPSTREAM_UNAVAILABLE`, or
 *   `UPSTREAM_AUTH_FAILED` when the credentials or fresh tokens are refused). Answered from the
 *   token manager's state, without waiting for the token endpoint; a probe that finds no token
 *   held asks for one in the background (shared with any request in flight, and never while the
 *   token manager backs off), so a new replica holds one before its first request.
 * - `breakers`: the circuit state of every upstream operation called so far.
 * - With Redis configured, `redis: 'up' | 'down'` (Redis down: in-process cache, own token).
 */
import type { Plugin } from 'graphql-yoga';
import type { UpstreamClient } from '../../upstream/contracts.js';
import { ROUTES } from '../../edge/routes.js';

/** Liveness: answers at once, checks nothing (the Kubernetes liveness probe and the image's HEALTHCHECK). */
export const HEALTH_PATH = ROUTES.health;
/** Readiness: this replica can answer; 503 once it is stopping (the Kubernetes readiness probe). */
export const READINESS_PATH = ROUTES.readiness;

export interface HealthSources {
  /** Redis's state, with Redis configured. */
  redisState?: () => 'up' | 'down';
  /** True once the gateway is stopping (`Gateway.drain`). Default: never. */
  stopping?: () => boolean;
}

export function useHealth(client: Pick<UpstreamClient, 'tokens' | 'breakerStates'>, { redisState, stopping }: HealthSources = {}): Plugin {
  return {
    onRequest({ url, endResponse, fetchAPI }) {
      if (url.pathname === HEALTH_PATH) return endResponse(fetchAPI.Response.json({ status: 'ok' }));
      if (url.pathname !== READINESS_PATH) return;
      const stopped = stopping?.() === true;
      const details = {
        ...tokenState(client.tokens, !stopped),
        breakers: client.breakerStates(),
        ...(redisState ? { redis: redisState() } : {}),
      };
      endResponse(stopped
        ? fetchAPI.Response.json({ status: 'stopping', ...details }, { status: 503 })
        : fetchAPI.Response.json({ status: 'ready', ...details }));
    },
  };
}

// Private: the token's state; when none is held, one is asked for first (`warm`), not waited
// for (its failure is logged and backed off by the token manager).
function tokenState(tokens: UpstreamClient['tokens'], warm: boolean): { upstream?: object } {
  if (tokens.state === undefined) return {};
  const { token } = tokens.state();
  if (warm && (token === 'none' || token === 'failing')) tokens.getToken().catch(() => {});
  return { upstream: tokens.state() };
}
