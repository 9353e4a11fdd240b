/**
 * Compiled execution (`EXECUTION_COMPILED`): a plain query runs as the function graphql-jit
 * generates for it, compiled when the same text comes back and reused from then on. It changes
 * how an answer is computed, not what it says: `@defer`/`@stream`, operations that do not compile
 * and variables graphql-jit refuses run on yoga's executor, and errors are rebuilt as graphql-js
 * makes them (jit-errors.ts). Compiled queries live in an LRU by document, bounded in entries
 * and estimated bytes.
 */
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import { execute, getOperationAST, type DocumentNode, type ExecutionArgs, type ExecutionResult } from 'graphql';
import { LRUCache } from 'lru-cache';
import { asksForParts } from '../incremental-document.js';
import { asGraphQLJsErrors } from './jit-errors.js';

export interface CompiledExecutionOptions {
  /** Documents whose operations are kept, at most. Default 1024. */
  maxDocuments?: number;
  /** Estimated heap bytes of all compiled operations, at most. Default 32 MiB. */
  maxBytes?: number;
}

/** Heap bytes a compiled operation is counted as, per character of its document: its closures and the document they keep. */
const BYTES_PER_DOCUMENT_CHARACTER = 150;

/** An executor, as envelop's `execute` hook takes it. */
export type Execute = (args: ExecutionArgs) => unknown;
/** A document's operations by name (`null`: none): compiled, left to yoga's executor, or seen once. */
type Compiled = Map<string | null, CompiledQuery | typeof INTERPRET | typeof SEEN_ONCE>;
const INTERPRET = 'interpret';
const SEEN_ONCE = 'seen once';

/** The executor of these arguments: compiled, graphql-js, or undefined for yoga's executor. */
export type ExecutorFor = (args: ExecutionArgs, interpreted: Execute) => Execute | undefined;

export function createCompiledExecution(enabled: boolean, { maxDocuments = 1024, maxBytes = 32 * 1024 * 1024 }: CompiledExecutionOptions = {}): ExecutorFor {
  const compiled = new LRUCache<DocumentNode, Compiled>({
    max: maxDocuments,
    maxSize: maxBytes,
    sizeCalculation: (operations, document) => operations.size * (document.loc?.source.body.length ?? 1000) * BYTES_PER_DOCUMENT_CHARACTER,
  });

  // Compiled on its second run: compiling costs more than a validation, which a text sent once never repays.
  function compiledFor(args: ExecutionArgs): CompiledQuery | undefined {
    const key = args.operationName ?? null;
    const operations = compiled.get(args.document);
    const known = operations?.get(key);
    if (known !== undefined && known !== SEEN_ONCE) return known === INTERPRET ? undefined : known;
    const next = known === undefined ? SEEN_ONCE : compile(args);
    // Set again (not only changed) so that the LRU counts the operation's weight.
    compiled.set(args.document, new Map(operations).set(key, next));
    return typeof next === 'string' ? undefined : next;
  }

  return (args, interpreted) => {
    if (!enabled) return undefined;
    const query = compiledFor(args);
    // Not compiled yet: graphql-js keeps the query's field order, as the compiled query will.
    if (query === undefined) return plainQuery(args) ? (execute as Execute) : undefined;
    return (executed: ExecutionArgs) => {
      const result = query.query(executed.rootValue, executed.contextValue, executed.variableValues);
      return result instanceof Promise
        ? result.then((settled) => asGraphQLJs(settled, executed, interpreted))
        : asGraphQLJs(result, executed, interpreted);
    };
  };
}

// Private: a query answered in one part (not @defer/@stream), which graphql-js can run.
function plainQuery({ document, operationName }: ExecutionArgs): boolean {
  return getOperationAST(document, operationName)?.operation === 'query' && !asksForParts(document);
}

// Private: the compiled query, or INTERPRET when this operation is yoga's executor's to run.
function compile({ schema, document, operationName }: ExecutionArgs): CompiledQuery | typeof INTERPRET {
  if (getOperationAST(document, operationName)?.operation !== 'query' || asksForParts(document)) return INTERPRET;
  try {
    // Stacks are not captured: every error is rebuilt below, with its original error's stack.
    const query = compileQuery(schema, document, operationName ?? undefined, { disablingCapturingStackErrors: true });
    return isCompiledQuery(query) ? query : INTERPRET;
  } catch {
    return INTERPRET;
  }
}

// Private: a result without `data` is graphql-jit refusing the variables; yoga's executor reports it.
function asGraphQLJs(result: ExecutionResult, args: ExecutionArgs, interpreted: Execute): unknown {
  if (!('data' in result)) return interpreted(args);
  if (result.errors === undefined || result.errors.length === 0) return result;
  const { errors, data, ...rest } = result;
  return { errors: asGraphQLJsErrors(errors, args), data, ...rest };
}

