/**
 * A plain query run straight, without envelop's hook chain: the functions yoga's hooks run, in
 * the same order, so that the answer is the same: the checks (the first refusal answers), the
 * executor compile.ts picks, the scope's end and its notes, then masking.
 */
import type { ExecutionArgs, ExecutionResult, GraphQLError } from 'graphql';
import type { RequestScope } from '../../request/scope.js';
import { maskError } from '../mask-error.js';
import type { OperationCheck } from '../running-operation.js';
import type { Execute, ExecutorFor } from './compile.js';

export type RunQuery = (args: ExecutionArgs & { contextValue: { scope?: RequestScope } }) => Promise<ExecutionResult>;

/** Runs plain queries (not `@defer`/`@stream`) as yoga's execution hooks would. */
export function createQueryRunner(checks: ReadonlyArray<OperationCheck<{ scope?: RequestScope }>>, executorFor: ExecutorFor, interpreted: Execute): RunQuery {
  return async (args) => {
    let result = refusal(checks, args);
    if (result === undefined) {
      const execute = executorFor(args, interpreted) ?? interpreted;
      result = masked((await execute(args)) as ExecutionResult);
    }
    // A refusal gets the notes too, as the hooks before the checks end it in yoga's execute.
    const scope = args.contextValue.scope;
    scope?.dispose();
    return withNotes(result, scope);
  };
}

// Private: the first check's refusal, if one refuses.
function refusal(checks: ReadonlyArray<OperationCheck<{ scope?: RequestScope }>>, args: Parameters<RunQuery>[0]): ExecutionResult | undefined {
  let refused: ExecutionResult | undefined;
  for (const check of checks) {
    check(args, (result) => (refused = result));
    if (refused !== undefined) return refused;
  }
  return undefined;
}

/** The answer's `stale` and `dataAge` notes from its scope, in its `extensions`. */
export function withNotes<Result extends { extensions?: Record<string, unknown> }>(result: Result, scope: RequestScope | undefined): Result {
  const stale = scope?.stale ?? [];
  const dataAge = scope?.dataAge;
  if (stale.length === 0 && dataAge === undefined) return result;
  return { ...result, extensions: { ...result.extensions, ...(stale.length > 0 && { stale }), ...(dataAge !== undefined && { dataAge }) } };
}

// Private: what yoga's masking makes of a result's errors.
function masked(result: ExecutionResult): ExecutionResult {
  if (result.errors === undefined) return result;
  return { ...result, errors: result.errors.map((error) => maskError(error) as GraphQLError) };
}
