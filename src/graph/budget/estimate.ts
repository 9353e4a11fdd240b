/**
 * Estimates, before it runs, the upstream calls an operation can cause, derived from the fields'
 * bindings (graph/bindings.ts) alone: each bound field is priced by its binding, with keys and
 * costs from the table of operations (upstream/operations.ts), where its parent's records do not
 * already carry what it needs. Cached calls and repeats count nothing; a field called per parent
 * counts once per parent the lists above it can hold. A walk of a list not seen yet counts its
 * first page, and the hard stop covers what that misses. The catalog index is shared work, charged to no one.
 */
import {
  getNamedType, getNullableType, isInterfaceType, isListType, isObjectType, valueFromASTUntyped, type FieldNode,
  type FragmentDefinitionNode, type GraphQLField, type GraphQLNamedType, type GraphQLSchema, type OperationDefinitionNode,
} from 'graphql';
import { MAX_WALK_CALLS } from '../../data/page-range.js';
import { siteKey } from '../../live/watch-loop.js';
import { CHILD_LISTS, DETAILS, LISTS, type ChildKind, type DetailKind, type ListKind } from '../../upstream/operations.js';
import { BINDINGS, carries, listFor, type Binding, type Origin } from '../bindings.js';
import { decodeId } from '../ids.js';
import { listBound, UNBOUNDED_LIST_SIZE } from '../items.js';
import { fieldsOf as fieldsIn } from '../selection.js';
import { listPages, lookup, windowPages, type Plan, type Planner } from './pages.js';

export type { Planner } from './pages.js';

interface Walker extends Plan {
  schema: GraphQLSchema;
  bindings: Readonly<Record<string, Binding>>;
  fragments: Record<string, FragmentDefinitionNode>;
  variables: Record<string, unknown>;
  /** Per-parent calls planned so far (each occurrence its own entry). */
  perParent: number;
}

/** Where the walk is: the type of the records, where they came from, how many there can be. */
interface Place {
  type: GraphQLNamedType;
  origin: Origin | undefined;
  count: number;
  /** The size a page or a connection gives the list directly inside it. */
  bound: number | undefined;
  /** The field names from the root to here: the fields of one place run in one batch. */
  path: string;
}

/** The upstream calls `operation` can cause, from the fields' bindings (`bindings`: a test's own table). */
export function estimateUpstreamCalls(
  operation: OperationDefinitionNode,
  fragments: Record<string, FragmentDefinitionNode>,
  variables: Record<string, unknown>,
  planner: Planner,
  schema: GraphQLSchema,
  bindings = BINDINGS,
): number {
  const walker: Walker = { planner, schema, bindings, fragments, variables, calls: new Map(), perParent: 0 };
  const root = schema.getRootType(operation.operation);
  if (root) priceFields(walker, fieldsOf(walker, operation.selectionSet), { type: root, origin: undefined, count: 1, bound: undefined, path: '' });
  let calls = 0;
  for (const cost of walker.calls.values()) calls += cost;
  return calls;
}

function priceFields(w: Walker, fields: readonly FieldNode[], place: Place): void {
  if (!isObjectType(place.type) && !isInterfaceType(place.type)) return;
  for (const node of fields) {
    // Only introspection and fields of other types' fragments are missing: validation refused the rest.
    const field = place.type.getFields()[node.name.value];
    if (field !== undefined) priceField(w, node, field, place);
  }
}

function priceField(w: Walker, node: FieldNode, field: GraphQLField<unknown, unknown>, place: Place): void {
  const coordinate = `${place.type.name}.${field.name}`;
  const args = argumentsOf(w, node, field);
  const binding = Object.hasOwn(w.bindings, coordinate) ? w.bindings[coordinate] : undefined;
  let type: GraphQLNamedType = getNamedType(field.type);
  let origin = place.origin;
  if (binding?.per === 'id') {
    const decoded = decodeId(String(args.id));
    if (decoded === null) return;
    type = w.schema.getType(decoded.type) ?? type;
    origin = price(w, binding.of[decoded.type], node, { code: decoded.keys[0] }, place);
  } else if (binding !== undefined) {
    origin = price(w, binding, node, args, place);
  }
  const count = isListType(getNullableType(field.type)) ? place.count * numberOr(args.first, place.bound ?? UNBOUNDED_LIST_SIZE) : place.count;
  priceFields(w, fieldsOf(w, node.selectionSet), { type, origin, count, bound: listBound(coordinate, args), path: `${place.path}.${field.name}` });
}

/** Plans the calls of one bound field; the origin of its records. */
function price(w: Walker, binding: Binding, node: FieldNode, args: Record<string, unknown>, place: Place): Origin | undefined {
  switch (binding.per) {
    case 'page':
    case 'window': {
      if (binding.index?.when(args)) return binding.index.yields;
      const kind = listFor(binding.lists, recordType(place, node, binding.at), selectedAt(w, node, binding.at));
      if (binding.per === 'page') listPages(w, kind, Number(args.page), Number(args.pageSize));
      else windowPages(w, kind, `${place.type.name}.${node.name.value}`, args);
      return kind;
    }
    case 'lookup':
      lookup(w, DETAILS[binding.detail].key(String(args[binding.arg])), DETAILS[binding.detail].cost);
      return binding.detail;
    case 'walk':
      if (carries(place.origin, binding)) return place.origin;
      walkOnce(w, binding.list, binding.built);
      return binding.list;
    case 'batch':
      if (carries(place.origin, binding)) return place.origin;
      // A batch's details are not shared with the list's pages: its own key, per place.
      w.calls.set(`batch:${binding.list}:${place.path}`, walkCalls(w.planner, binding.list));
      return binding.list;
    case 'parent': {
      if (carries(place.origin, binding)) return place.origin;
      const { cost } = binding.operation in DETAILS ? DETAILS[binding.operation as DetailKind] : CHILD_LISTS[binding.operation as ChildKind];
      w.calls.set(`parent#${(w.perParent += 1)}`, place.count * cost);
      return binding.operation;
    }
    case 'watch': {
      const codes = binding.codes(args);
      for (const code of codes ?? []) w.calls.set(`watch:${siteKey(code)}`, DETAILS[binding.detail].cost);
      return codes === undefined ? binding.yields : binding.detail;
    }
    case 'index':
      return binding.yields;
    case 'id':
      return undefined; // priced by its type's binding (priceField)
  }
}

// Private: every page of a list not cached, unless the walk (or what is built from it) is; not
// knowing the list's length, its first page, which tells it.
function walkOnce(w: Plan, kind: ListKind, builtKey?: string): void {
  const { walkKey, walkPageSize } = LISTS[kind];
  if (w.planner.isCached(walkKey) || (builtKey !== undefined && w.planner.isCached(builtKey))) return;
  const { cap, total } = w.planner.facts(kind);
  if (total === undefined) return listPages(w, kind, 1, walkPageSize);
  // As many pages as a walk would ask for, bounded as the walk is, whatever `total` says.
  const callsPerPage = Math.ceil(walkPageSize / Math.min(walkPageSize, cap ?? walkPageSize));
  const pages = Math.min(Math.ceil(total / walkPageSize), Math.max(1, Math.floor(MAX_WALK_CALLS / callsPerPage)));
  for (let p = 1; p <= Math.max(1, pages); p += 1) listPages(w, kind, p, walkPageSize);
}

// Private: the calls a walk of `kind` would make, planned alone.
function walkCalls(planner: Planner, kind: ListKind): number {
  const walk: Plan = { planner, calls: new Map() };
  walkOnce(walk, kind);
  let calls = 0;
  for (const cost of walk.calls.values()) calls += cost;
  return calls;
}

// Private: the type of the records at `path` below `node`.
function recordType(place: Place, node: FieldNode, path: readonly string[]): string {
  let type: GraphQLNamedType | undefined = place.type;
  for (const name of [node.name.value, ...path]) {
    type = type && (isObjectType(type) || isInterfaceType(type)) ? getNamedType(type.getFields()[name]?.type) : undefined;
  }
  return type?.name ?? '';
}

// Private: whether a field is selected at `path` below `node`.
function selectedAt(w: Walker, node: FieldNode, path: readonly string[]): (field: string) => boolean {
  let level: readonly FieldNode[] = [node];
  for (const name of path) level = level.flatMap((f) => fieldsOf(w, f.selectionSet)).filter((f) => f.name.value === name);
  const names = new Set(level.flatMap((f) => fieldsOf(w, f.selectionSet)).map((f) => f.name.value));
  return (field) => names.has(field);
}

// Private: the field's arguments as given, and the schema's defaults of those left out.
function argumentsOf(w: Walker, field: FieldNode, definition: GraphQLField<unknown, unknown>): Record<string, unknown> {
  const given: Record<string, unknown> = Object.fromEntries(
    (field.arguments ?? []).map((arg) => [arg.name.value, valueFromASTUntyped(arg.value, w.variables)]),
  );
  for (const arg of definition.args) given[arg.name] ??= arg.defaultValue;
  return given;
}

function numberOr(value: unknown, fallback: number): number {
  return typeof value === 'number' ? value : fallback;
}

function fieldsOf(w: Walker, selectionSet: FieldNode['selectionSet']): readonly FieldNode[] {
  return fieldsIn(selectionSet, w.fragments);
}
