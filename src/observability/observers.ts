/**
 * The observers handed to the upstream client, the token manager and the shared cache: each event
 * moves the metrics and, on a request's behalf, that request's counts.
 */
import type { CacheObserver } from '../cache/cache.js';
import type { TokenObserver, UpstreamObserver } from '../upstream/http/observer.js';
import type { GatewayMetrics } from './metrics.js';
import { currentRequest } from '../request/current.js';

export interface Observers {
  upstream: UpstreamObserver;
  tokens: TokenObserver;
  cache: CacheObserver;
}

export function createObservers(metrics: GatewayMetrics): Observers {
  return {
    upstream: {
      onAttemptStart(path) {
        metrics.upstreamAttemptStarted(path);
        const record = currentRequest();
        if (record !== undefined) record.upstreamCalls += 1;
      },
      onAttemptEnd: (attempt) => metrics.upstreamAttemptEnded(attempt),
    },
    tokens: {
      onTokenRequest: ({ outcome }) => metrics.tokenRequest(outcome),
    },
    cache: {
      onLookup(kind, result, expiresAt) {
        metrics.cacheLookup(kind, result);
        currentRequest()?.lookedUp(result, expiresAt);
      },
    },
  };
}
