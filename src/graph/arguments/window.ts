/**
 * The paging arguments of every Relay connection, checked: a count is 0 to the field's maximum,
 * `first` and `last` never together, a cursor one issued for the same list; with neither count,
 * the field's default (`CONNECTION_SIZES`).
 */
import type { Cursors } from './cursors.js';
import { badUserInput, echo, MAX_AVAILABILITY } from './values.js';

/** What a page of a connection asks for: offsets, where the cursors named them. */
export interface Window {
  first: number | undefined;
  last: number | undefined;
  /** The offset of the `after` cursor (items start just after it). */
  after: number | undefined;
  /** The offset of the `before` cursor (items end just before it). */
  before: number | undefined;
}

/** A connection's size with neither `first` nor `last`, and its largest (none: `MAX_PAGE_SIZE`). */
export const CONNECTION_SIZES: Record<string, { fallback: number; max?: number }> = {
  'Query.sitesConnection': { fallback: 10 },
  'Query.productsConnection': { fallback: 10 },
  'City.sitesConnection': { fallback: 10 },
  'Query.sitesNearConnection': { fallback: 20 },
  'Query.searchProductsConnection': { fallback: 20 },
  'Product.availabilityConnection': { fallback: 50, max: MAX_AVAILABILITY },
};

/** The paging arguments as the schema gives them. */
export interface WindowInput {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
}

/** What the window rule needs: the page-size bound and the cursor codec. */
export interface WindowSettings {
  maxPageSize: number;
  cursors: Cursors;
}

/** The window of `coordinate`'s connection, checked against `list` (undefined: signatures only). */
export function windowArgs(coordinate: string, args: WindowInput, settings: WindowSettings, list: string | undefined): Window {
  const size = CONNECTION_SIZES[coordinate]!;
  const max = size.max ?? settings.maxPageSize;
  if (args.first != null && args.last != null) {
    throw badUserInput('first and last cannot be given together: page forward with first and after, or backward with last and before');
  }
  const first = countArg('first', args.first, max);
  const last = countArg('last', args.last, max);
  const cursor = (name: string, value: string | null | undefined) =>
    value == null ? undefined : settings.cursors.decode(name, value, list);
  return {
    first: first ?? (last === undefined ? size.fallback : undefined),
    last,
    after: cursor('after', args.after),
    before: cursor('before', args.before),
  };
}

/** The default size of a connection field, for estimates that read arguments unchecked. */
export function windowSize(coordinate: string, args: Record<string, unknown>): number | undefined {
  const size = CONNECTION_SIZES[coordinate];
  if (size === undefined) return undefined;
  const given = typeof args.first === 'number' ? args.first : args.last;
  return typeof given === 'number' ? given : size.fallback;
}

// Private: an optional count of items, 0 to `max`.
function countArg(name: string, value: number | null | undefined, max: number): number | undefined {
  if (value == null) return undefined;
  if (value < 0 || value > max) throw badUserInput(`${name} must be from 0 to ${max}, but got: ${echo(value)}`);
  return value;
}
