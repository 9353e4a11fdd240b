/**
 * An operation of a type the schema has no root for (a `mutation`: the graph is read-only) is
 * refused at validation, with `GRAPHQL_VALIDATION_FAILED` like every validation error, over HTTP
 * and WebSocket alike (both validate with yoga's enveloped `validate`). graphql-js 16 lets it
 * through to execution, whose "Schema is not configured to execute mutation operation." carries
 * no code; graphql-js 17's `KnownOperationTypesRule` refuses it the same way, in the same words.
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
