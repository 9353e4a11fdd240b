/**
 * The operation an execution is about to run, as the checks before it (arguments, items, the
 * upstream budget) must see it: the operation `operationName` selects, never the document's
 * others; the fragments; and the variables coerced by graphql-js's own rules (types checked,
 * defaults applied), as execution will see them. Worked out once per execution.
 *
 * Variables that do not coerce are refused here, as graphql-js words it but with the client's
 * value cut short, `BAD_USER_INPUT`, HTTP 400: no check below ever reads a value of the wrong type.
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

// Private: where the arguments keep their running operation. A property of the (per-execution)
// arguments, not a WeakMap entry: V8 promoted what a WeakMap held for a young key to the old
// generation, which a major collection then had to clear (a sampling heap profile of objects
// that outlived a young-generation collection: 74 bytes a request, a sixth of all).
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

// Private: getOperationAST is undefined for an unknown or ambiguous operationName; execution
// then reports that itself.
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

/**
 * The same check before an execution and before a subscription (a subscription's events run the
 * same fields, so a check that only hooked `onExecute` would let a subscription skip it).
 */
export function beforeEveryOperation<Context>(check: OperationCheck<Context>): {
  onExecute(payload: { args: ExecutionArgs & { contextValue: Context }; setResultAndStopExecution(result: ExecutionResult): void }): void;
  onSubscribe(payload: { args: ExecutionArgs & { contextValue: Context }; setResultAndStopExecution(result: ExecutionResult): void }): void;
} {
  const hook = ({ args, setResultAndStopExecution }: { args: ExecutionArgs & { contextValue: Context }; setResultAndStopExecution(result: ExecutionResult): void }) =>
    check(args, setResultAndStopExecution);
  return { onExecute: hook, onSubscribe: hook };
}
