/**
 * Every argument of the running operation, root and nested fields alike, checked before it runs
 * by the rules the resolvers use (graph/arguments/rules.ts). It comes before the item limit and
 * the budget, so a bad argument is named as such (`BAD_USER_INPUT`), never priced, and costs no
 * upstream call; the refusal lists every bad argument.
 */
import {
  getArgumentValues, getNamedType, GraphQLError, isInterfaceType, isObjectType, Kind, type GraphQLNamedType,
  type GraphQLSchema, type SelectionSetNode,
} from 'graphql';
import { codeOf, type ErrorCode } from '../../base/errors.js';
import { coded } from '../../base/graph-errors.js';
import { argumentRuleOf, type ArgumentSettings } from '../arguments/rules.js';
import type { RequestScope } from '../../request/scope.js';
import { isRunning, runningOperation, type OperationCheck, type RunningOperation } from '../running-operation.js';

export type ArgumentCheckSettings = ArgumentSettings;

export function argumentCheck(settings: ArgumentCheckSettings): OperationCheck<{ scope?: RequestScope }> {
  return (args, refuse) => {
    const running = runningOperation(args);
    if (running === undefined) return;
    const errors = isRunning(running) ? checkArguments(args.schema, running, settings) : running.errors;
    if (errors.length === 0) return;
    args.contextValue.scope?.dispose();
    refuse({ errors });
  };
}

interface Checker {
  schema: GraphQLSchema;
  running: RunningOperation;
  settings: ArgumentSettings;
  /** Fragments checked already: a fragment's arguments are the same wherever it is spread. */
  checked: Set<string>;
  errors: GraphQLError[];
}

/** The errors of every bad argument in the running operation (none: it may run). */
export function checkArguments(schema: GraphQLSchema, running: RunningOperation, settings: ArgumentSettings): GraphQLError[] {
  const root = schema.getRootType(running.operation.operation);
  if (!root) return [];
  const checker: Checker = { schema, running, settings, checked: new Set(), errors: [] };
  checkSelections(checker, running.operation.selectionSet, root);
  return checker.errors;
}

function checkSelections(c: Checker, selectionSet: SelectionSetNode, parent: GraphQLNamedType): void {
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) {
      if (!isObjectType(parent) && !isInterfaceType(parent)) continue; // a union's only field is __typename
      const field = parent.getFields()[selection.name.value];
      if (field === undefined) continue; // __typename and introspection: no rules
      const rule = argumentRuleOf(`${parent.name}.${field.name}`);
      try {
        rule?.(getArgumentValues(field, selection, c.running.variables), c.settings);
      } catch (error) {
        if (!(error instanceof GraphQLError)) throw error;
        c.errors.push(coded(codeOf(error) as ErrorCode, error.message, { nodes: selection, extensions: error.extensions }));
      }
      if (selection.selectionSet) checkSelections(c, selection.selectionSet, getNamedType(field.type));
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      const condition = selection.typeCondition && c.schema.getType(selection.typeCondition.name.value);
      checkSelections(c, selection.selectionSet, condition ?? parent);
    } else if (!c.checked.has(selection.name.value)) {
      c.checked.add(selection.name.value);
      const fragment = c.running.fragments[selection.name.value];
      const condition = fragment && c.schema.getType(fragment.typeCondition.name.value);
      if (fragment && condition) checkSelections(c, fragment.selectionSet, condition);
    }
  }
}
