/**
 * `GET /healthz`: the process is alive. `GET /readyz`: 200 `ready` until the gateway drains, then
 * 503 `stopping`, with the upstream token's state, the breakers and Redis's state as details.
 * Readiness ignores the upstream's health on purpose: every replica shares it, so a failure would
 * take the whole fleet out of the load balancer while cached data could still be served.
 */
import type { UpstreamClient } from '../../upstream/contracts.js';
import { ROUTES } from '../../admission/routes.js';
import type { Page } from '../page.js';

/** Liveness: answers at once, checks nothing. */
export const HEALTH_PATH = ROUTES.health;
/** Readiness: this replica can answer; 503 once it is stopping. */
export const READINESS_PATH = ROUTES.readiness;

export interface HealthSources {
  /** Redis's state, with Redis configured. */
  redisState?: () => 'up' | 'down';
  /** True once the gateway is stopping (`Gateway.drain`). Default: never. */
  stopping?: () => boolean;
}

export function healthPage(client: Pick<UpstreamClient, 'tokens' | 'breakerStates'>, { redisState, stopping }: HealthSources = {}): Page {
  return ({ url }) => {
    if (url.pathname === HEALTH_PATH) return Response.json({ status: 'ok' });
    if (url.pathname !== READINESS_PATH) return undefined;
    const stopped = stopping?.() === true;
    const details = {
      ...tokenState(client.tokens, !stopped),
      breakers: client.breakerStates(),
      ...(redisState ? { redis: redisState() } : {}),
    };
    return stopped ? Response.json({ status: 'stopping', ...details }, { status: 503 }) : Response.json({ status: 'ready', ...details });
  };
}

// Private: the token's state; with none held, one is asked for (`warm`) but not waited for.
function tokenState(tokens: UpstreamClient['tokens'], warm: boolean): { upstream?: object } {
  if (tokens.state === undefined) return {};
  const { token } = tokens.state();
  if (warm && (token === 'none' || token === 'failing')) tokens.getToken().catch(() => {});
  return { upstream: tokens.state() };
}
