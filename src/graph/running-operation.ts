/**
 * The operation an execution is about to run, as the checks before it must see it: the selected
 * operation, its fragments and its variables coerced as execution will see them, worked out once.
 * Variables that do not coerce are refused here (`BAD_USER_INPUT`), so no check reads a wrong type.
 */
import {
  getOperationAST, getVariableValues, Kind, type GraphQLError, type ExecutionArgs, type ExecutionResult, type FragmentDefinitionNode,
  type OperationDefinitionNode,
} from 'graphql';
import { coded } from '../base/graph-errors.js';

export interface RunningOperation {
  operation: OperationDefinitionNode;
  /** The document's fragments, by name. */
  fragments: Record<string, FragmentDefinitionNode>;
  /** The variables, coerced to their declared types, defaults applied. */
  variables: Record<string, unknown>;
}

/** What the checks find: the operation, errors in its variables, or none to run (execution says why). */
export type RunningOperationOrErrors = RunningOperation | { errors: GraphQLError[] } | undefined;

/** Longest message a coercion error keeps: graphql-js repeats the bad value, whatever its size. */
const MAX_MESSAGE_LENGTH = 160;
/** Coercion errors reported at most: one request's variables can be wrong in many ways. */
const MAX_ERRORS = 10;

// Private: a property of the per-execution arguments, not a WeakMap entry, which V8 keeps longer.
const RUNNING = Symbol('running operation');

/** The running operation of these execution arguments (the same object for every plugin). */
export function runningOperation(args: ExecutionArgs): RunningOperationOrErrors {
  const carrier = args as ExecutionArgs & { [RUNNING]?: RunningOperationOrErrors | null };
  let running = carrier[RUNNING];
  if (running === undefined) carrier[RUNNING] = running = workOut(args) ?? null;
  return running ?? undefined;
}

export function isRunning(value: RunningOperationOrErrors): value is RunningOperation {
  return value !== undefined && 'operation' in value;
}

// Private: undefined for an unknown or ambiguous operationName, which execution reports itself.
function workOut(args: ExecutionArgs): RunningOperationOrErrors {
  const operation = getOperationAST(args.document, args.operationName);
  if (!operation) return undefined;
  const coerced = getVariableValues(args.schema, operation.variableDefinitions ?? [], args.variableValues ?? {}, {
    maxErrors: MAX_ERRORS,
  });
  if (coerced.errors) return { errors: coerced.errors.map(refusal) };
  const fragments: Record<string, FragmentDefinitionNode> = {};
  for (const definition of args.document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments[definition.name.value] = definition;
  }
  return { operation, fragments, variables: coerced.coerced };
}

function refusal(error: GraphQLError): GraphQLError {
  const message = error.message.length <= MAX_MESSAGE_LENGTH ? error.message : `${error.message.slice(0, MAX_MESSAGE_LENGTH)}…`;
  return coded('BAD_USER_INPUT', message, { nodes: error.nodes, status: 400 });
}

/** What a check before an operation does: nothing (it may run), or refuse it with a result. */
export type OperationCheck<Context> = (args: ExecutionArgs & { contextValue: Context }, refuse: (result: ExecutionResult) => void) => void;

/** The same check before an execution and a subscription, whose events run the same fields. */
export function beforeEveryOperation<Context>(check: OperationCheck<Context>): {
  onExecute(payload: { args: ExecutionArgs & { contextValue: Context }; setResultAndStopExecution(result: ExecutionResult): void }): void;
  onSubscribe(payload: { args: ExecutionArgs & { contextValue: Context }; setResultAndStopExecution(result: ExecutionResult): void }): void;
} {
  const hook = ({ args, setResultAndStopExecution }: { args: ExecutionArgs & { contextValue: Context }; setResultAndStopExecution(result: ExecutionResult): void }) =>
    check(args, setResultAndStopExecution);
  return { onExecute: hook, onSubscribe: hook };
}
