/**
 * Limits on the shape of a document, checked before anything executes: tokens while parsing,
 * then depth, aliases, directives and cost while validating. graphql-armor counts; each refusal
 * gets a stable `extensions.code` and, unless the limits are exposed, a message without the limit.
 * Depth counts fields only, so fragments add no level; a `__schema` field is exempt from depth
 * and cost. Two views differ from armor's: only an alias on the `__typename` field escapes the
 * alias count, and cost ignores `first`/`last`, which are bounded by their own argument maximum.
 */
import { EnvelopArmorPlugin } from '@escape.tech/graphql-armor';
import { costLimitRule } from '@escape.tech/graphql-armor-cost-limit';
import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import {
  Kind, visit, type ASTNode, type ASTVisitor, type FragmentDefinitionNode, type GraphQLError, type OperationDefinitionNode, type ValidationContext,
  type ValidationRule,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Config } from '../../base/config/config.js';
import { ERRORS } from '../../base/errors.js';
import { coded } from '../../base/graph-errors.js';

/** The limits, as configured (units and defaults: config.ts). */
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

export function useQueryLimits(limits: QueryLimits): Plugin[] {
  const expose = limits.exposeQueryLimits;
  const common = (code: QueryLimitCode) => ({
    exposeLimits: expose,
    // What a refusal says when the limits are not exposed: the registry's message.
    errorMessage: ERRORS[code].message,
    propagateOnRejection: false,
    onReject: [reportWith(code)],
  });
  const armor: Plugin = EnvelopArmorPlugin({
    blockFieldSuggestion: { enabled: false }, // the introspection policy decides (use-introspection-policy.ts)
    maxTokens: { ...common('TOKEN_LIMIT_EXCEEDED'), n: limits.maxQueryTokens, onReject: [throwWith('TOKEN_LIMIT_EXCEEDED')] },
    maxDepth: { ...common('DEPTH_LIMIT_EXCEEDED'), n: limits.maxQueryDepth, flattenFragments: true, ignoreIntrospection: true },
    maxAliases: { enabled: false }, // counted below, on a view of the document
    maxDirectives: { ...common('DIRECTIVE_LIMIT_EXCEEDED'), n: limits.maxDirectives },
    costLimit: { enabled: false }, // counted below, on a view of the document
  });
  // No allow-list: armor's default (`__typename`) matches an alias as well as a field's name.
  const aliases = withView(
    maxAliasesRule({ ...common('ALIAS_LIMIT_EXCEEDED'), n: limits.maxAliases, allowList: [] }),
    withoutTypenameAliases,
  );
  const cost = withView(
    costLimitRule({ ...common('COST_LIMIT_EXCEEDED'), maxCost: limits.maxQueryCost, flattenFragments: true, ignoreIntrospection: true }),
    withoutListSizes,
  );
  return [
    armor,
    {
      onValidate({ addValidationRule }) {
        addValidationRule(aliases);
        addValidationRule(cost);
      },
    },
  ];
}

/** The arguments armor's cost takes for a list's size. */
const LIST_SIZES = new Set(['first', 'last']);

// Private: the document as the cost rule sees it: without `first` and `last` arguments.
const withoutListSizes: ASTVisitor = {
  [Kind.ARGUMENT]: (argument) => (LIST_SIZES.has(argument.name.value) ? null : undefined),
};

// Private: the document as the alias rule sees it: the `__typename` field is never aliased.
const withoutTypenameAliases: ASTVisitor = {
  [Kind.FIELD]: (field) => (field.name.value === '__typename' && field.alias ? { ...field, alias: undefined } : undefined),
};

// Private: an armor rule shown each operation and fragment (read through `getFragment`) as `view` rewrites it.
function withView(rule: ValidationRule, view: ASTVisitor): ValidationRule {
  return (context) => {
    const fragments = new Map<string, FragmentDefinitionNode | undefined>();
    const viewed = new Proxy(context, {
      get(target, property, receiver) {
        if (property !== 'getFragment') return Reflect.get(target, property, receiver) as unknown;
        return (name: string) => {
          if (!fragments.has(name)) fragments.set(name, rewritten(target.getFragment(name) ?? undefined, view));
          return fragments.get(name);
        };
      },
    });
    const visitor = rule(viewed) as { OperationDefinition: { enter(node: OperationDefinitionNode): void } };
    return { OperationDefinition: { enter: (node) => visitor.OperationDefinition.enter(rewritten(node, view)) } };
  };
}

function rewritten<T extends ASTNode>(node: T, view: ASTVisitor): T;
function rewritten<T extends ASTNode>(node: T | undefined, view: ASTVisitor): T | undefined;
function rewritten<T extends ASTNode>(node: T | undefined, view: ASTVisitor): T | undefined {
  return node === undefined ? node : visit(node, view);
}

// Private: validation rules report the coded error alongside graphql's own validation errors.
function reportWith(code: QueryLimitCode) {
  return (context: ValidationContext | null, error: GraphQLError) => context?.reportError(recoded(error, code));
}

// Private: the parser has no context to report to, so the token limit throws the coded error.
function throwWith(code: QueryLimitCode) {
  return (_context: ValidationContext | null, error: GraphQLError) => {
    throw recoded(error, code);
  };
}

// Private: armor prefixes every message with "Syntax Error: ", which these are not.
function recoded(error: GraphQLError, code: QueryLimitCode): GraphQLError {
  return coded(code, error.message.replace(/^Syntax Error: /, ''));
}
