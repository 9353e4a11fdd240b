/**
 * What protects the graph from its clients, from the configuration (docs/security-and-keys.md, "Security"): CSRF
 * prevention, the allow-list, persisted queries, the introspection policy and query limits.
 */
import type { BatchingOptions, Plugin } from 'graphql-yoga';
import type { Config } from '../../base/config/config.js';
import type { Admission } from '../../admission/admission.js';
import { refusalError } from '../../admission/refusal.js';
import { useAutomaticPersistedQueries } from './use-automatic-persisted-queries.js';
import type { PersistedQueryStore } from '../../admission/automatic-persisted.js';
import { useIntrospectionPolicy } from './use-introspection-policy.js';
import { useAllowList } from './use-persisted-operations.js';
import { useQueryLimits, type QueryLimits } from './use-query-limits.js';

export type ProtectionConfig = QueryLimits &
  Pick<Config, 'persistedOperations' | 'csrfPrevention' | 'batchingLimit' | 'introspection'>;

/** The plugins, in the order they must see a request. */
export function protectionPlugins(config: ProtectionConfig, admission: Pick<Admission, 'csrf' | 'persisted'>, apq: PersistedQueryStore): Plugin[] {
  return [
    ...(config.csrfPrevention ? [useCsrfHeaders(admission)] : []),
    config.persistedOperations ? useAllowList(admission) : useAutomaticPersistedQueries(apq),
    useIntrospectionPolicy(config.introspection),
    ...useQueryLimits(config),
  ];
}

// Private: the admission's CSRF rule, where yoga reads a request's parameters.
function useCsrfHeaders(admission: Pick<Admission, 'csrf'>): Plugin {
  return {
    onRequestParse({ request }) {
      const refused = admission.csrf(request.headers);
      if (refused !== undefined) throw refusalError(refused);
    },
  };
}

/** yoga's batching option for `BATCHING_LIMIT`: 0 is off (a JSON array body is refused). */
export function batchingOptions(limit: number): BatchingOptions {
  return limit > 0 ? { limit } : false;
}
