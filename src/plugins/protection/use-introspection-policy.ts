/**
 * `INTROSPECTION=false` (the default when `NODE_ENV=production`): `__schema` and `__type` are
 * refused with `INTROSPECTION_DISABLED` before execution, and validation errors lose their
 * "Did you mean …" suggestions, which would otherwise spell the schema out field by field.
 * `__typename` stays: clients (Apollo Client adds it everywhere) need it to tell types apart.
 */
import { EnvelopArmorPlugin } from '@escape.tech/graphql-armor';
import { getNamedType, isIntrospectionType, type ValidationRule } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { coded } from '../../base/graph-errors.js';

export function useIntrospectionPolicy(enabled: boolean): Plugin {
  if (enabled) return {};
  return {
    onPluginInit({ addPlugin }) {
      addPlugin({ onValidate: ({ addValidationRule }) => addValidationRule(introspectionDisabled) });
      addPlugin(
        EnvelopArmorPlugin({
          blockFieldSuggestion: { enabled: true, mask: '' },
          maxTokens: { enabled: false },
          maxDepth: { enabled: false },
          maxAliases: { enabled: false },
          maxDirectives: { enabled: false },
          costLimit: { enabled: false },
        }),
      );
    },
  };
}

/**
 * graphql-js's `NoSchemaIntrospectionCustomRule` (what yoga's disable-introspection plugin adds),
 * with a code, and one error per introspection field rather than one per field below it.
 */
export const introspectionDisabled: ValidationRule = (context) => ({
  Field(node) {
    const type = getNamedType(context.getType());
    if (!type || !isIntrospectionType(type)) return undefined;
    context.reportError(
      coded('INTROSPECTION_DISABLED', `Introspection is disabled, but the operation asks for "${node.name.value}".`, { nodes: node }),
    );
    return false;
  },
});
