/**
 * A page of a Relay connection from a window (graph/arguments/window.ts) over a list: the span
 * the window covers, and the edges, cursors and page info of that span. A list held in memory
 * (the catalog index) is sliced (`sliceConnection`); a list read from the upstream page by page
 * asks for the span's items only (upstream-window.ts), then builds the same way.
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

/**
 * The page of edges `edges` (the items of `span`, in order, each a new object of this page's),
 * given their cursors in `list` in place: one signature for the page, and no copy of an edge.
 */
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
