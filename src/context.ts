/**
 * The per-request context: the request's scope (deadline, disconnect, stale record) and fresh
 * DataLoaders bound to it over the shared, cache-backed sources.
 */
import type { YogaInitialContext } from 'graphql-yoga';
import type { CatalogIndex } from './catalog/catalog-index.js';
import type { TimeReader } from './catalog/opening-hours.js';
import type { LiveStock } from './live/live-stock.js';
import { createLoaders, type Loaders } from './loaders/loaders.js';
import type { AddressOf } from './observability/client-address.js';
import type { Sources } from './loaders/sources.js';
import { createUpstreamCharges } from './plugins/protection/upstream-budget/use-upstream-budget.js';
import { createRequestScope, type RequestScope } from './plugins/serving/use-request-scope.js';

export interface GatewayContext {
  loaders: Loaders;
  scope: RequestScope;
  /** The largest `pageSize` a client may ask for (`MAX_PAGE_SIZE`). */
  maxPageSize: number;
  /** Reads times of day in the sites' time zone (`SITE_TIMEZONE`). */
  siteTime: TimeReader;
  /** Live stock, behind the `Subscription` fields. */
  live: LiveStock;
  /** Where a request came from (`TRUST_PROXY`): the live subscriptions' per-client limit knows a client without a key by it. */
  addressOf: AddressOf;
}

export interface ContextSettings {
  maxPageSize: number;
  /** `REQUEST_TIMEOUT_MS`. */
  requestTimeoutMs: number;
  /** `MAX_UPSTREAM_CALLS_PER_OPERATION`: the hard stop on the upstream calls one HTTP request (a whole batch) starts. */
  maxUpstreamCallsPerOperation: number;
  /** The catalog index, when on (`INDEX_ENABLED`). */
  index: CatalogIndex | undefined;
  siteTime: TimeReader;
  live: LiveStock;
  addressOf: AddressOf;
}

export function createContextFactory(sources: Sources, settings: ContextSettings) {
  const chargesOf = createUpstreamCharges(settings.maxUpstreamCallsPerOperation);
  return ({ request }: YogaInitialContext): GatewayContext => {
    const scope = createRequestScope(() => request.signal, settings.requestTimeoutMs);
    const chargeUpstreamCall = chargesOf(request);
    return {
      scope,
      // Not `{ ...scope }`: spreading would read its signal, which is made on first use.
      loaders: createLoaders(sources, {
        get signal() {
          return scope.signal;
        },
        onStale: scope.onStale,
        onDataAge: scope.onDataAge,
        chargeUpstreamCall,
      }, settings.index),
      maxPageSize: settings.maxPageSize,
      siteTime: settings.siteTime,
      live: settings.live,
      addressOf: settings.addressOf,
    };
  };
}
