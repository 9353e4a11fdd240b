/**
 * Introspection off: `__schema` and `__type` are refused with `INTROSPECTION_DISABLED` before
 * execution, and validation errors lose the "Did you mean …" suggestions that would spell the
 * schema out. `__typename` stays: clients need it to tell types apart.
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

/** graphql-js's `NoSchemaIntrospectionCustomRule` with a code, one error per introspection field. */
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
