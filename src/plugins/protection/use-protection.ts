/**
 * What protects the graph from its clients, assembled from the configuration (README
 * "Security"): CSRF prevention, persisted operations (allow-list or automatic), the
 * introspection policy, query limits; and yoga's CORS and batching options.
 */
import { useCSRFPrevention } from '@graphql-yoga/plugin-csrf-prevention';
import { GraphQLError } from 'graphql';
import { createGraphQLError, type BatchingOptions, type CORSOptions, type Plugin } from 'graphql-yoga';
import type { Config } from '../../base/config/config.js';
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
    ...(config.csrfPrevention ? [useCsrfHeaders()] : []),
    config.persistedOperations ? useAllowList(config.persistedOperations) : useAutomaticPersistedQueries(),
    useIntrospectionPolicy(config.introspection),
    ...useQueryLimits(config),
  ];
}

/** The code of the CSRF refusal (HTTP 403), which yoga's plugin sends without one. */
const CSRF_CODE = 'CSRF_HEADER_REQUIRED';

// Private: yoga's CSRF prevention, its 403 coded like every other refusal. The lean path serves
// only JSON POSTs, which it never refuses, so this is the one place the refusal is made.
function useCsrfHeaders(): Plugin {
  const { onRequestParse } = useCSRFPrevention({ requestHeaders: CSRF_HEADERS });
  return {
    onRequestParse(payload) {
      try {
        return onRequestParse!(payload);
      } catch (error) {
        if (!(error instanceof GraphQLError)) throw error;
        throw createGraphQLError(`${error.message}: send one of ${CSRF_HEADERS.join(', ')}`, {
          extensions: { ...error.extensions, code: CSRF_CODE },
        });
      }
    },
  };
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
