/**
 * What protects the graph from a document, from the configuration (docs/security-and-keys.md,
 * "Security"): the introspection policy and the query limits, at parse and validation.
 */
import type { Plugin } from 'graphql-yoga';
import type { Config } from '../../base/config/config.js';
import { useIntrospectionPolicy } from './use-introspection-policy.js';
import { useQueryLimits, type QueryLimits } from './use-query-limits.js';

export type ProtectionConfig = QueryLimits & Pick<Config, 'introspection'>;

/** The plugins, in the order they must see a document. */
export function protectionPlugins(config: ProtectionConfig): Plugin[] {
  return [useIntrospectionPolicy(config.introspection), ...useQueryLimits(config)];
}
