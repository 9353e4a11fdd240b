/**
 * An operation of a type the schema has no root for (a `mutation`) is refused at validation,
 * `GRAPHQL_VALIDATION_FAILED`, as graphql-js 17's `KnownOperationTypesRule` words it.
 */
import type { ValidationRule } from 'graphql';
import { coded } from '../../base/graph-errors.js';
import type { Plugin } from 'graphql-yoga';

export function useKnownOperationTypes(): Plugin {
  return { onValidate: ({ addValidationRule }) => addValidationRule(knownOperationTypes) };
}

export const knownOperationTypes: ValidationRule = (context) => ({
  OperationDefinition(node) {
    if (context.getSchema().getRootType(node.operation) !== undefined) return;
    context.reportError(coded('GRAPHQL_VALIDATION_FAILED', `The ${node.operation} operation is not supported by the schema.`, { nodes: node }));
  },
});
