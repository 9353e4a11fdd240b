/**
 * The list entries an operation could return at most, multiplying list bounds through nesting
 * (`first`, a page's `pageSize`, a connection's window; `UNBOUNDED_LIST_SIZE` without a bound).
 * Each entry counts at every level: `a(first: 100) { b(first: 1000) }` is 100 + 100 × 1000. A
 * connection's edge counts `EDGE_WEIGHT` entries, so connections admit no more work than lists.
 */
import {
  getArgumentValues, getNamedType, getNullableType, isInterfaceType, isListType, isObjectType, Kind,
  type FieldNode, type GraphQLNamedType, type GraphQLSchema, type OperationDefinitionNode, type SelectionSetNode, type ValueNode,
} from 'graphql';
import { windowSize } from './arguments/window.js';
import type { RunningOperation } from './running-operation.js';

/** Entries a list with no bound of its own counts as: more than the demo data's 3 points a site. */
export const UNBOUNDED_LIST_SIZE = 5;

/** Entries one edge of a connection counts as: its cost against a list item (bench/connection-cost.ts). */
export const EDGE_WEIGHT = 3;

/** The bound a page or a connection gives the list directly inside it, and what each of its entries counts. */
interface Bound {
  size: number;
  weight: number;
}

interface Counter {
  schema: GraphQLSchema;
  running: RunningOperation;
  /** Whether a list's bound (`BOUNDS`) was read from an argument holding a variable. */
  variable: boolean;
  /** Entries per spread of a fragment, by name and the bound it sits under: each counted once. */
  fragments: Map<string, number>;
}

// Private: counts by running operation, read by more than one step.
const counted = new WeakMap<RunningOperation, number>();
// Private: the count of each operation whose bounds hold no variable: the same for every request.
const constant = new WeakMap<OperationDefinitionNode, number>();

/** The list entries the running operation could return at most (worked out once per running operation). */
export function countItems(schema: GraphQLSchema, running: RunningOperation): number {
  let items = counted.get(running) ?? constant.get(running.operation);
  if (items === undefined) {
    const root = schema.getRootType(running.operation.operation);
    const counter: Counter = { schema, running, variable: false, fragments: new Map() };
    items = root ? itemsIn(counter, running.operation.selectionSet, root, undefined) : 0;
    if (counter.variable) counted.set(running, items);
    else constant.set(running.operation, items);
  }
  return items;
}

// Private: the entries under one object of type `parent`; `bound` is its own, when it is a page or a connection.
function itemsIn(c: Counter, selectionSet: SelectionSetNode, parent: GraphQLNamedType, bound: Bound | undefined): number {
  let items = 0;
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) {
      items += itemsOfField(c, selection, parent, bound);
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      const condition = selection.typeCondition && c.schema.getType(selection.typeCondition.name.value);
      items += itemsIn(c, selection.selectionSet, condition ?? parent, bound);
    } else {
      const key = `${selection.name.value}:${bound ? `${bound.size}×${bound.weight}` : ''}`;
      if (!c.fragments.has(key)) {
        const fragment = c.running.fragments[selection.name.value];
        const condition = fragment && c.schema.getType(fragment.typeCondition.name.value);
        c.fragments.set(key, fragment && condition ? itemsIn(c, fragment.selectionSet, condition, bound) : 0);
      }
      items += c.fragments.get(key) ?? 0;
    }
  }
  return items;
}

function itemsOfField(c: Counter, node: FieldNode, parent: GraphQLNamedType, bound: Bound | undefined): number {
  if (!node.selectionSet || (!isObjectType(parent) && !isInterfaceType(parent))) return 0; // leaves are no entries
  const field = parent.getFields()[node.name.value];
  if (field === undefined) return 0;
  const args = field.args.length > 0 ? getArgumentValues(field, node, c.running.variables) : {};
  c.variable ||= node.arguments?.some((argument) => BOUNDS.has(argument.name.value) && holdsVariable(argument.value)) === true;
  const inner = itemsIn(c, node.selectionSet, getNamedType(field.type), boundOf(`${parent.name}.${field.name}`, args));
  if (!isListType(getNullableType(field.type))) return inner;
  const size = numberOr(args.first, bound?.size ?? UNBOUNDED_LIST_SIZE);
  return size * ((bound?.weight ?? 1) + inner);
}

/** The size a page or a connection gives the list directly inside it (none: no bound of its own). */
export function listBound(coordinate: string, args: Record<string, unknown>): number | undefined {
  return boundOf(coordinate, args)?.size;
}

// Private: a page's items count its `pageSize`, one each; a connection's edges its window, `EDGE_WEIGHT` each.
function boundOf(coordinate: string, args: Record<string, unknown>): Bound | undefined {
  if (typeof args.pageSize === 'number') return { size: args.pageSize, weight: 1 };
  const window = windowSize(coordinate, args);
  return window === undefined ? undefined : { size: window, weight: EDGE_WEIGHT };
}

/** The arguments a list's size is read from (below, and graph/arguments/window.ts). */
const BOUNDS = new Set(['first', 'last', 'pageSize']);

// Private: whether a value (a list's or an object's members too) is or holds a variable.
function holdsVariable(value: ValueNode): boolean {
  if (value.kind === Kind.VARIABLE) return true;
  if (value.kind === Kind.LIST) return value.values.some(holdsVariable);
  if (value.kind === Kind.OBJECT) return value.fields.some((field) => holdsVariable(field.value));
  return false;
}

function numberOr<T>(value: unknown, fallback: T): number | T {
  return typeof value === 'number' ? value : fallback;
}
