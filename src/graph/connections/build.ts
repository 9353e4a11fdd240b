/**
 * A page of a Relay connection from a window over a list: the span it covers, and that span's
 * edges, cursors and page info, whether the list is in memory or read from the upstream.
 */
import type { Cursors } from '../arguments/cursors.js';
import type { Window } from '../arguments/window.js';

/** A page of a connection; `E` is what an edge holds besides its cursor. */
export interface ConnectionModel<E> {
  edges: (E & { cursor: string })[];
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
  totalCount: number;
}

/** Items `start` to `end` (excluded) of a list of `total` items. */
export interface Span {
  start: number;
  end: number;
}

/** Where a window lies in a list of `total` items (the Relay specification's algorithm, by offsets). */
export function spanOf(window: Window, total: number): Span {
  let start = Math.min(window.after === undefined ? 0 : window.after + 1, total);
  let end = Math.max(start, Math.min(window.before ?? total, total));
  if (window.first !== undefined) end = Math.min(end, start + window.first);
  if (window.last !== undefined) start = Math.max(start, end - window.last);
  return { start, end };
}

/** The page of `edges` (new objects, in order), given their cursors in place under one signature. */
export function connectionOf<E extends object>(edges: E[], start: number, total: number, list: string, cursors: Cursors): ConnectionModel<E> {
  const cursorAt = cursors.page(list, start, start + edges.length);
  const withCursors = edges as (E & { cursor: string })[];
  for (let i = 0; i < withCursors.length; i++) withCursors[i]!.cursor = cursorAt(start + i);
  return {
    edges: withCursors,
    pageInfo: {
      hasPreviousPage: start > 0,
      hasNextPage: start + edges.length < total,
      startCursor: withCursors[0]?.cursor ?? null,
      endCursor: withCursors.at(-1)?.cursor ?? null,
    },
    totalCount: total,
  };
}

/** A page of a connection over a list in memory; `edge` makes an edge of an item. */
export function sliceConnection<T, E extends object>(items: readonly T[], window: Window, list: string, cursors: Cursors, edge: (item: T) => E): ConnectionModel<E> {
  const { start, end } = spanOf(window, items.length);
  return connectionOf(items.slice(start, end).map(edge), start, items.length, list, cursors);
}
