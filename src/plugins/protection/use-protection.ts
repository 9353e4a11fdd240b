/**
 * What protects the graph from its clients, assembled from the configuration (README
 * "Security"): CSRF prevention, persisted operations (allow-list or automatic), the
 * introspection policy, query limits; and yoga's CORS and batching options.
 */
import { useCSRFPrevention } from '@graphql-yoga/plugin-csrf-prevention';
import type { BatchingOptions, CORSOptions, Plugin } from 'graphql-yoga';
import type { Config } from '../../config.js';
import { useAutomaticPersistedQueries } from './use-automatic-persisted-queries.js';
import { useIntrospectionPolicy } from './use-introspection-policy.js';
import { useAllowList } from './use-persisted-operations.js';
import { useQueryLimits, type QueryLimits } from './use-query-limits.js';

export type ProtectionConfig = QueryLimits &
  Pick<Config, 'persistedOperations' | 'csrfPrevention' | 'corsOrigins' | 'batchingLimit' | 'introspection'>;

/**
 * With `CSRF_PREVENTION`, a GET or a "simple" POST (form, multipart, text/plain: the kinds a
 * browser sends cross-site without a preflight) must carry one of these headers, which no
 * cross-site form or image can set. yoga's own, and the two Apollo clients already send.
 */
export const CSRF_HEADERS = ['x-graphql-yoga-csrf', 'apollo-require-preflight', 'x-apollo-operation-name'];

/** The plugins, in the order they must see a request. */
export function protectionPlugins(config: ProtectionConfig): Plugin[] {
  return [
    ...(config.csrfPrevention ? [useCSRFPrevention({ requestHeaders: CSRF_HEADERS })] : []),
    config.persistedOperations ? useAllowList(config.persistedOperations) : useAutomaticPersistedQueries(),
    useIntrospectionPolicy(config.introspection),
    ...useQueryLimits(config),
  ];
}

/**
 * yoga's CORS option for `CORS_ORIGINS`: `['*']` lets any origin call (its own is echoed), a list
 * only those, `[]` none (no CORS headers: browsers allow same-origin only). Never credentials:
 * the gateway authenticates no client by cookie.
 */
export function corsOptions(origins: readonly string[]): CORSOptions {
  if (origins.length === 0) return false;
  // Browsers let scripts read only the response headers listed here.
  return { origin: origins.includes('*') ? '*' : [...origins], credentials: false, exposedHeaders: ['x-request-id', 'retry-after'] };
}

/** yoga's batching option for `BATCHING_LIMIT`: 0 is off (a JSON array body is refused). */
export function batchingOptions(limit: number): BatchingOptions {
  return limit > 0 ? { limit } : false;
}
