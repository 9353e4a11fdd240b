/**
 * Limits on the shape of a document, checked before anything executes (so a refused operation
 * costs no upstream call): tokens while parsing, then depth, aliases, directives and cost while
 * validating. graphql-armor counts; this module gives each refusal a stable `extensions.code`
 * and, unless `EXPOSE_QUERY_LIMITS` is set, a message that does not tell the limit.
 *
 * Depth counts fields only (`flattenFragments`): a fragment, named or inline, adds no level, so
 * clients that compose queries from fragments (Apollo, Relay) get the same limit as those that
 * do not. Introspection (a `__schema` *field*) is exempt from depth and cost, so GraphiQL's
 * introspection query runs. Older armor exempted any node *named* `__schema`, so an operation or
 * a fragment of that name escaped both limits; the versions graphql-armor 3.2 pins (max-depth
 * 2.4.2, cost-limit 2.4.3) exempt only a field, and test/protection/limits.test.ts holds them to it.
 */
import { EnvelopArmorPlugin } from '@escape.tech/graphql-armor';
import { GraphQLError, type ValidationContext } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Config } from '../config.js';

/** The limits, as configured (see config.ts for each one's unit and default). */
export type QueryLimits = Pick<
  Config,
  'maxQueryDepth' | 'maxAliases' | 'maxQueryTokens' | 'maxDirectives' | 'maxQueryCost' | 'exposeQueryLimits'
>;

export type QueryLimitCode =
  | 'DEPTH_LIMIT_EXCEEDED'
  | 'ALIAS_LIMIT_EXCEEDED'
  | 'TOKEN_LIMIT_EXCEEDED'
  | 'DIRECTIVE_LIMIT_EXCEEDED'
  | 'COST_LIMIT_EXCEEDED';

/** What a refusal says when the limits are not exposed. */
const MESSAGES: Record<QueryLimitCode, string> = {
  DEPTH_LIMIT_EXCEEDED: 'The operation nests fields too deeply.',
  ALIAS_LIMIT_EXCEEDED: 'The operation has too many aliases.',
  TOKEN_LIMIT_EXCEEDED: 'The document is too long.',
  DIRECTIVE_LIMIT_EXCEEDED: 'The operation has too many directives.',
  COST_LIMIT_EXCEEDED: 'The operation is too expensive.',
};

export function useQueryLimits(limits: QueryLimits): Plugin {
  const expose = limits.exposeQueryLimits;
  const common = (code: QueryLimitCode) => ({
    exposeLimits: expose,
    errorMessage: MESSAGES[code],
    propagateOnRejection: false,
    onReject: [reportWith(code)],
  });
  return EnvelopArmorPlugin({
    blockFieldSuggestion: { enabled: false }, // the introspection policy decides (use-introspection-policy.ts)
    maxTokens: { ...common('TOKEN_LIMIT_EXCEEDED'), n: limits.maxQueryTokens, onReject: [throwWith('TOKEN_LIMIT_EXCEEDED')] },
    maxDepth: { ...common('DEPTH_LIMIT_EXCEEDED'), n: limits.maxQueryDepth, flattenFragments: true, ignoreIntrospection: true },
    maxAliases: { ...common('ALIAS_LIMIT_EXCEEDED'), n: limits.maxAliases },
    maxDirectives: { ...common('DIRECTIVE_LIMIT_EXCEEDED'), n: limits.maxDirectives },
    costLimit: { ...common('COST_LIMIT_EXCEEDED'), maxCost: limits.maxQueryCost, flattenFragments: true, ignoreIntrospection: true },
  });
}

// Private: validation rules report the coded error alongside graphql's own validation errors.
function reportWith(code: QueryLimitCode) {
  return (context: ValidationContext | null, error: GraphQLError) => context?.reportError(coded(error, code));
}

// Private: the token limit is checked by the parser, which has no context to report to: the
// coded error is thrown in place of armor's and ends parsing at once.
function throwWith(code: QueryLimitCode) {
  return (_context: ValidationContext | null, error: GraphQLError) => {
    throw coded(error, code);
  };
}

// Private: armor prefixes every message with "Syntax Error: ", which these are not.
function coded(error: GraphQLError, code: QueryLimitCode): GraphQLError {
  return new GraphQLError(error.message.replace(/^Syntax Error: /, ''), { extensions: { code } });
}
