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
 * 2.4.2, cost-limit 2.4.3) exempt only a field, and test/plugins/protection/limits.test.ts holds them to it.
 *
 * Cost is armor's, with one change: armor multiplies a selection's cost by a literal `first` or
 * `last` argument (but not by one given as a variable, nor by `pageSize`). Here `first` bounds
 * how many results come back, checked against its own maximum (`BAD_USER_INPUT` beyond it), as
 * `pageSize` does; so armor is shown each operation without those arguments.
 */
import { EnvelopArmorPlugin } from '@escape.tech/graphql-armor';
import { costLimitRule } from '@escape.tech/graphql-armor-cost-limit';
import {
  GraphQLError, Kind, visit, type ASTNode, type FragmentDefinitionNode, type OperationDefinitionNode, type ValidationContext,
  type ValidationRule,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Config } from '../../config.js';

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

export function useQueryLimits(limits: QueryLimits): Plugin[] {
  const expose = limits.exposeQueryLimits;
  const common = (code: QueryLimitCode) => ({
    exposeLimits: expose,
    errorMessage: MESSAGES[code],
    propagateOnRejection: false,
    onReject: [reportWith(code)],
  });
  const armor: Plugin = EnvelopArmorPlugin({
    blockFieldSuggestion: { enabled: false }, // the introspection policy decides (use-introspection-policy.ts)
    maxTokens: { ...common('TOKEN_LIMIT_EXCEEDED'), n: limits.maxQueryTokens, onReject: [throwWith('TOKEN_LIMIT_EXCEEDED')] },
    maxDepth: { ...common('DEPTH_LIMIT_EXCEEDED'), n: limits.maxQueryDepth, flattenFragments: true, ignoreIntrospection: true },
    maxAliases: { ...common('ALIAS_LIMIT_EXCEEDED'), n: limits.maxAliases },
    maxDirectives: { ...common('DIRECTIVE_LIMIT_EXCEEDED'), n: limits.maxDirectives },
    costLimit: { enabled: false },
  });
  const cost = withoutListSizes(
    costLimitRule({ ...common('COST_LIMIT_EXCEEDED'), maxCost: limits.maxQueryCost, flattenFragments: true, ignoreIntrospection: true }),
  );
  return [armor, { onValidate: ({ addValidationRule }) => addValidationRule(cost) }];
}

/** The arguments armor's cost takes for a list's size. */
const LIST_SIZES = new Set(['first', 'last']);

// Private: armor's cost rule, shown each operation and fragment without `first` and `last`.
function withoutListSizes(rule: ValidationRule): ValidationRule {
  return (context) => {
    const fragments = new Map<string, FragmentDefinitionNode | undefined>();
    const view = new Proxy(context, {
      get(target, property, receiver) {
        if (property !== 'getFragment') return Reflect.get(target, property, receiver) as unknown;
        return (name: string) => {
          if (!fragments.has(name)) fragments.set(name, stripped(target.getFragment(name) ?? undefined));
          return fragments.get(name);
        };
      },
    });
    const visitor = rule(view) as { OperationDefinition: { enter(node: OperationDefinitionNode): void } };
    return { OperationDefinition: { enter: (node) => visitor.OperationDefinition.enter(stripped(node)) } };
  };
}

function stripped<T extends ASTNode>(node: T): T;
function stripped<T extends ASTNode>(node: T | undefined): T | undefined;
function stripped<T extends ASTNode>(node: T | undefined): T | undefined {
  if (node === undefined) return node;
  return visit(node, { [Kind.ARGUMENT]: (argument) => (LIST_SIZES.has(argument.name.value) ? null : undefined) });
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
