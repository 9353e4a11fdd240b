/**
 * Compiled execution (`EXECUTION_COMPILED`), for every door: a query runs as the function graphql-jit generates
 * for its document and operation, compiled when the same text comes back (whatever its
 * variables) and reused from then on, instead of yoga's executor (graphql-tools' fork of
 * graphql-js) walking the document anew on every request. yoga's path asks it in
 * use-compiled-execution.ts, the lean path in run.ts. It changes how an answer is computed,
 * not what it says:
 *
 * - Only plain queries are compiled. A document with `@defer` or `@stream` (graphql-jit answers
 *   in one piece), an operation that does not compile, or one `operationName` does not select
 *   runs on yoga's executor, which reports what is wrong in its own words.
 * - Every check runs before either executor and sees the same arguments: the argument checks,
 *   the item limit, the upstream budget, the response cache; a refusal stops both alike.
 * - Errors are made what graphql-js makes them, before any other hook sees them. graphql-jit's
 *   own carry `locations` but no AST nodes, and yoga's masking (mask-error.ts) and serialiser
 *   rebuild errors from their nodes: the locations were lost. A non-null violation had no
 *   original error, so masking let graphql-jit's wording through where graphql-js's answer says
 *   "Unexpected error.". And where several non-null fields fail under one nullable field,
 *   graphql-jit reported each, after every other error; graphql-js reports the first.
 * - Variables that graphql-jit cannot coerce are reported by yoga's executor (in practice the
 *   checks refuse them first: running-operation.ts), so the wording is graphql-js's too.
 * - One difference stays, in the bytes only: an object's fields come in the order of the query,
 *   as the spec asks, where yoga's executor writes a field whose resolver waited after the
 *   others (graphql-tools' promiseForObject). A client reading JSON sees the same answer; its
 *   ETag differs.
 *
 * Compiled queries are kept in an LRU by document and operation, bounded in entries and in an
 * estimate of their bytes; documents themselves are bounded by yoga's parser cache
 * (graph/parser-caches.ts), which hands out the same document object for the same text.
 */
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import { execute, getOperationAST, type DocumentNode, type ExecutionArgs, type ExecutionResult } from 'graphql';
import { LRUCache } from 'lru-cache';
import { asksForParts } from '../incremental-document.js';
import { asGraphQLJsErrors } from './jit-errors.js';

export interface CompiledExecutionOptions {
  /** Documents whose operations are kept (compiled, or counted), at most. Default 1024, as yoga's parser cache. */
  maxDocuments?: number;
  /** Heap bytes the compiled operations may take together, as estimated. Default 32 MiB, as the parser cache's documents. */
  maxBytes?: number;
}

/**
 * Heap bytes a compiled operation is counted as, per character of its document's text: measured
 * with graphql-jit 0.8.9 after one run, 35 to 45 (3 KB for a one-product query, 200 KB for fifteen
 * aliased site trees), plus the document it keeps alive once yoga's parser cache lets it go (about
 * 85, parser-caches.ts).
 */
const BYTES_PER_DOCUMENT_CHARACTER = 150;

/** An executor, as envelop's `execute` hook takes it. */
export type Execute = (args: ExecutionArgs) => unknown;
/**
 * A document's operations by name (`null`: no operationName): compiled; `INTERPRET`, what yoga's
 * executor runs; `SEEN_ONCE`, run once so far (interpreted).
 */
type Compiled = Map<string | null, CompiledQuery | typeof INTERPRET | typeof SEEN_ONCE>;
const INTERPRET = 'interpret';
const SEEN_ONCE = 'seen once';

/**
 * The executor of these arguments: the compiled query (`interpreted` answers the variables
 * graphql-jit refuses); graphql-js for a plain query not compiled yet; undefined for what yoga's
 * executor runs (everything, when compilation is off).
 */
export type ExecutorFor = (args: ExecutionArgs, interpreted: Execute) => Execute | undefined;

export function createCompiledExecution(enabled: boolean, { maxDocuments = 1024, maxBytes = 32 * 1024 * 1024 }: CompiledExecutionOptions = {}): ExecutorFor {
  const compiled = new LRUCache<DocumentNode, Compiled>({
    max: maxDocuments,
    maxSize: maxBytes,
    sizeCalculation: (operations, document) => operations.size * (document.loc?.source.body.length ?? 1000) * BYTES_PER_DOCUMENT_CHARACTER,
  });

  // An operation is compiled when it comes back: compiling costs a few tenths of a ms for the
  // contract's queries, but up to ten times a validation for large ones (22 ms for fifteen aliased
  // site trees), which a text sent once (or each of a stream of distinct texts) would never repay.
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
    // Not compiled (yet): graphql-js runs a plain query, so that its answer has the same bytes as
    // the compiled one's (yoga's executor writes a field that waited for its data after the
    // others; graphql-js and graphql-jit keep the query's order, as the spec asks).
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

// Private: a result without `data` is graphql-jit's refusal of the variables: reported by yoga's
// executor instead, which runs nothing when variables do not coerce. graphql-js writes `errors`
// before `data`.
function asGraphQLJs(result: ExecutionResult, args: ExecutionArgs, interpreted: Execute): unknown {
  if (!('data' in result)) return interpreted(args);
  if (result.errors === undefined || result.errors.length === 0) return result;
  const { errors, data, ...rest } = result;
  return { errors: asGraphQLJsErrors(errors, args), data, ...rest };
}

