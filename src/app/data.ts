/**
 * The gateway's data side, below GraphQL, wired from the configuration:
 *   upstream api → client → token;  sources → shared cache → upstream api;  index → sources
 */
import type { Clock } from '../base/clock.js';
import type { GatewayConfig } from '../base/config/config.js';
import { codeOf } from '../base/errors.js';
import type { Logger } from '../base/logger.js';
import { createLruCache, type LruCacheOptions } from '../cache/lru-cache.js';
import { createCatalogIndex } from '../catalog/catalog-index.js';
import { createSources } from '../data/sources.js';
import type { GatewayMetrics } from '../observability/metrics.js';
import type { createObservers } from '../observability/observers.js';
import type { createTracing } from '../observability/tracing.js';
import { createUpstreamApi } from '../upstream/api.js';
import { createUpstreamClient } from '../upstream/http/client.js';
import { createTokenManager } from '../upstream/token/manager.js';
import type { createScaleOut } from './fleet.js';

/** What the data side is made with: shared by the gateway's other parts. */
export interface DataWiring {
  clock: Clock;
  /** The logger whose lines carry the request id. */
  log: Logger;
  metrics: GatewayMetrics;
  observers: ReturnType<typeof createObservers>;
  tracing: ReturnType<typeof createTracing> | undefined;
  scaleOut: ReturnType<typeof createScaleOut> | undefined;
}

export type Data = ReturnType<typeof createData>;

export function createData(config: GatewayConfig, { clock, log, metrics, observers, tracing, scaleOut }: DataWiring) {
  const { upstream } = config;
  const tokens = createTokenManager({
    tokenUrl: upstream.tokenUrl,
    clientId: upstream.clientId,
    clientSecret: upstream.clientSecret,
    scope: upstream.scope,
    clientAuth: upstream.clientAuth,
    timeoutMs: config.tokenTimeoutMs,
    logger: log,
    observer: observers.tokens,
    tracer: tracing?.upstream,
    store: scaleOut?.tokenStore,
    clock,
  });
  const client = createUpstreamClient({
    baseUrl: upstream.baseUrl,
    timeoutMs: config.upstreamTimeoutMs,
    retries: config.upstreamRetries,
    maxConcurrency: config.upstreamMaxConcurrency,
    maxQueue: config.upstreamMaxQueue,
    breakerCooldownMs: config.upstreamBreakerCooldownMs,
    tokens,
    clock,
    logger: log,
    observer: observers.upstream,
    tracer: tracing?.upstream,
  });
  const cacheOptions: LruCacheOptions = {
    maxEntries: config.cacheMaxEntries,
    staleWhileRevalidateMs: config.cacheStaleWhileRevalidateS * 1000,
    staleIfErrorMs: config.cacheStaleIfErrorS * 1000,
    clock,
    observer: observers.cache,
    onBackgroundError: (key, error) => log.warn({ key, code: codeOf(error) }, 'background refresh failed'),
  };
  // With REDIS_URL the replicas share it (fleet.ts).
  const cache = scaleOut ? scaleOut.cache(cacheOptions) : createLruCache(cacheOptions);
  const api = createUpstreamApi(client, log);
  const sources = createSources(api, cache, {
    citiesMs: config.cacheTtlCitiesS * 1000,
    sitesMs: config.cacheTtlSitesS * 1000,
    productsMs: config.cacheTtlProductsS * 1000,
  }, clock);
  const index = config.index.enabled ? createCatalogIndex(sources, {
    sitesRefreshMs: (config.index.refreshS ?? config.cacheTtlSitesS) * 1000,
    productsRefreshMs: (config.index.refreshS ?? config.cacheTtlProductsS) * 1000,
    staleIfErrorMs: config.cacheStaleIfErrorS * 1000,
    clock,
    logger: log,
    onBuilt: (part, outcome, durationMs) => metrics.indexBuild(part, outcome, durationMs),
    ...(tracing ? { traceWalk: (part, walk) => tracing.inSpan(`catalog.walk ${part}`, { 'catalog.part': part }, walk) } : {}),
  }) : undefined;
  if (config.index.warmOnStart) index?.warm();
  return { tokens, client, cache, api, sources, index };
}
