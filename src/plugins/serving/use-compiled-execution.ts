/**
 * Compiled execution (`EXECUTION_COMPILED`): a query runs as the function graphql-jit generates
 * for its document and operation, compiled when the same text comes back (whatever its
 * variables) and reused from then on, instead of yoga's executor (graphql-tools' fork of
 * graphql-js) walking the document anew on every request. It changes how an answer is computed,
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
 * (parser-caches.ts), which hands out the same document object for the same text.
 */
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import {
  execute, getNamedType, getNullableType, getOperationAST, GraphQLNonNull, isInterfaceType, isListType, isNonNullType,
  isObjectType, Kind, locatedError, visit, type DocumentNode, type ExecutionArgs, type ExecutionResult, type FieldNode,
  type FragmentDefinitionNode, type GraphQLError, type GraphQLField, type GraphQLNamedType, type GraphQLObjectType, type GraphQLOutputType,
  type GraphQLSchema, type SelectionSetNode, type SourceLocation,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { LRUCache } from 'lru-cache';
import { asksForParts } from '../../graph/incremental-document.js';

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

type Execute = (args: ExecutionArgs) => unknown;
/**
 * A document's operations by name (`null`: no operationName): compiled; `INTERPRET`, what yoga's
 * executor runs; `SEEN_ONCE`, run once so far (interpreted).
 */
type Compiled = Map<string | null, CompiledQuery | typeof INTERPRET | typeof SEEN_ONCE>;
const INTERPRET = 'interpret';
const SEEN_ONCE = 'seen once';

/** Replaces yoga's executor by graphql-jit's compiled queries when `enabled`; nothing otherwise. */
export function useCompiledExecution(enabled: boolean, { maxDocuments = 1024, maxBytes = 32 * 1024 * 1024 }: CompiledExecutionOptions = {}): Plugin {
  if (!enabled) return {};
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

  return {
    onExecute({ args, executeFn, setExecuteFn }) {
      const query = compiledFor(args);
      if (query === undefined) {
        // Not compiled (yet): graphql-js runs a plain query, so that its answer has the same
        // bytes as the compiled one's (yoga's executor writes a field that waited for its data
        // after the others; graphql-js and graphql-jit keep the query's order, as the spec asks).
        if (plainQuery(args)) setExecuteFn(execute as typeof executeFn);
        return;
      }
      const interpreted = executeFn as Execute;
      setExecuteFn(((executed: ExecutionArgs) => {
        const result = query.query(executed.rootValue, executed.contextValue, executed.variableValues);
        return result instanceof Promise
          ? result.then((settled) => asGraphQLJs(settled, executed, interpreted))
          : asGraphQLJs(result, executed, interpreted);
      }) as typeof executeFn);
    },
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

/**
 * Private: graphql-jit's errors as graphql-js reports them. Where a non-null field fails, the
 * null goes up to the nearest nullable field, and graphql-js reports only the first error to get
 * there (the others are lost in a Promise.all); graphql-jit reports every one, after the others.
 * Here one per nullable field is kept, placed among the others in the order of the document
 * (the order graphql-js meets them in, unless upstream calls answer out of order).
 */
function asGraphQLJsErrors(errors: readonly GraphQLError[], args: ExecutionArgs): GraphQLError[] {
  const shape = shapeOf(args);
  const placed: Array<{ error: GraphQLError; place: Place | undefined }> = [];
  const propagated: typeof placed = [];
  const nulled = new Set<string>();
  for (const error of errors) {
    const place = shape && error.path ? placeOf(shape, error.path) : undefined;
    if (place === undefined || !place.nonNull) placed.push({ error, place });
    else if (!nulled.has(place.nullable)) {
      nulled.add(place.nullable);
      propagated.push({ error, place });
    }
  }
  for (const entry of propagated) {
    const at = placed.findIndex(({ place }) => place !== undefined && precedes(entry.place!.order, place.order));
    placed.splice(at === -1 ? placed.length : at, 0, entry);
  }
  const fields = fieldsByLocation(args.document);
  return placed.map(({ error }) => relocated(error, fields));
}

// Private: a graphql-jit error as graphql-js locates it. graphql-js reports a non-null violation
// as a plain Error, so that is what such an error (the one kind without an original) becomes.
function relocated(error: GraphQLError, fields: Map<string, FieldNode>): GraphQLError {
  const nodes = error.locations?.map((location) => fields.get(key(location))).filter((node) => node !== undefined);
  return locatedError(error.originalError ?? new Error(error.message), nodes?.length ? nodes : undefined, error.path);
}

interface Shape {
  schema: GraphQLSchema;
  root: GraphQLObjectType;
  selections: readonly SelectionSetNode[];
  fragments: Map<string, FragmentDefinitionNode>;
}

/** Where an error's path leads in the operation. */
interface Place {
  /** Position of each step: a field's among its siblings (first occurrence), an item's index. */
  order: number[];
  /** Whether the field (or list item) at the end of the path is non-null. */
  nonNull: boolean;
  /** The path of the nearest nullable field (or item) on the way, dot-joined; '' for `data` itself. */
  nullable: string;
}

function shapeOf({ schema, document, operationName }: ExecutionArgs): Shape | undefined {
  const operation = getOperationAST(document, operationName);
  const root = schema.getQueryType();
  if (!operation || !root) return undefined;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  return { schema, root, selections: [operation.selectionSet], fragments };
}

// Private: follows a response path through the operation's selections and the schema's types.
function placeOf(shape: Shape, path: ReadonlyArray<string | number>): Place | undefined {
  let type: GraphQLOutputType = new GraphQLNonNull(shape.root);
  let selections = shape.selections;
  const order: number[] = [];
  let nullable = 0;
  for (const [step, segment] of path.entries()) {
    const unwrapped: GraphQLOutputType = getNullableType(type);
    if (typeof segment === 'number') {
      if (!isListType(unwrapped)) return undefined;
      type = unwrapped.ofType as GraphQLOutputType;
      order.push(segment);
    } else {
      const found = fieldsNamed(shape, selections, segment);
      if (!found) return undefined;
      const owner: GraphQLNamedType = found.condition ?? getNamedType(unwrapped);
      const field: GraphQLField<unknown, unknown> | undefined = isObjectType(owner) || isInterfaceType(owner) ? owner.getFields()[found.nodes[0]!.name.value] : undefined;
      if (!field) return undefined;
      type = field.type;
      order.push(found.index);
      selections = found.nodes.flatMap((node) => (node.selectionSet ? [node.selectionSet] : []));
    }
    if (!isNonNullType(type)) nullable = step + 1;
  }
  return { order, nonNull: isNonNullType(type), nullable: path.slice(0, nullable).join('.') };
}

// Private: the fields answering `responseKey` in these selections (fragments included), the
// position of that key among the selections' keys, and the object type a fragment narrowed to.
function fieldsNamed(shape: Shape, selections: readonly SelectionSetNode[], responseKey: string) {
  const keys: string[] = [];
  const nodes: FieldNode[] = [];
  let condition: GraphQLNamedType | undefined;
  const walk = (set: SelectionSetNode, narrowed: GraphQLNamedType | undefined): void => {
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        const name = (selection.alias ?? selection.name).value;
        if (!keys.includes(name)) keys.push(name);
        if (name === responseKey) {
          nodes.push(selection);
          condition ??= narrowed;
        }
        continue;
      }
      const fragment = selection.kind === Kind.INLINE_FRAGMENT ? selection : shape.fragments.get(selection.name.value);
      if (!fragment) continue;
      const named = fragment.typeCondition && shape.schema.getType(fragment.typeCondition.name.value);
      walk(fragment.selectionSet, named && isObjectType(named) ? named : narrowed);
    }
  };
  for (const set of selections) walk(set, undefined);
  return nodes.length === 0 ? undefined : { nodes, index: keys.indexOf(responseKey), condition };
}

function precedes(a: number[], b: number[]): boolean {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! < b[i]!;
  return a.length < b.length;
}

// Private: a document's fields by the line and column they start at.
function fieldsByLocation(document: DocumentNode): Map<string, FieldNode> {
  const fields = new Map<string, FieldNode>();
  visit(document, { Field: (node) => void (node.loc && fields.set(key(node.loc.startToken), node)) });
  return fields;
}

function key({ line, column }: SourceLocation): string {
  return `${line}:${column}`;
}
