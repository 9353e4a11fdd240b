/**
 * The per-request context: the request's scope (deadline, disconnect, stale record) and fresh
 * DataLoaders bound to it over the shared, cache-backed sources.
 */
import type { YogaInitialContext } from 'graphql-yoga';
import { createLoaders, type Loaders } from './loaders/loaders.js';
import type { Sources } from './loaders/sources.js';
import { createUpstreamCharge } from './plugins/upstream-budget/use-upstream-budget.js';
import { createRequestScope, type RequestScope } from './plugins/use-request-scope.js';

export interface GatewayContext {
  loaders: Loaders;
  scope: RequestScope;
  /** The largest `pageSize` a client may ask for (`MAX_PAGE_SIZE`). */
  maxPageSize: number;
}

export interface ContextSettings {
  maxPageSize: number;
  /** `REQUEST_TIMEOUT_MS`. */
  requestTimeoutMs: number;
  /** `MAX_UPSTREAM_CALLS_PER_OPERATION`: the hard stop on the upstream calls one request starts. */
  maxUpstreamCallsPerOperation: number;
}

export function createContextFactory(sources: Sources, settings: ContextSettings) {
  return ({ request }: YogaInitialContext): GatewayContext => {
    const scope = createRequestScope(request.signal, settings.requestTimeoutMs);
    const chargeUpstreamCall = createUpstreamCharge(settings.maxUpstreamCallsPerOperation);
    return { scope, loaders: createLoaders(sources, { ...scope, chargeUpstreamCall }), maxPageSize: settings.maxPageSize };
  };
}
