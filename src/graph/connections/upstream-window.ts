/**
 * A connection's window over an upstream-paged list, read as pages of the window's own size: a
 * window on page boundaries is one cached upstream page, any other straddles two at most. Only
 * `last` without `before` must first learn the list's length, from page 1.
 */
import type { Loaders } from '../../data/loaders.js';
import type { KindRecord } from '../../data/sources.js';
import type { ListKind } from '../../upstream/operations.js';
import type { Window } from '../arguments/window.js';
import { spanOf } from './build.js';

/** The items of a window, where they start, and the list's length. */
export interface WindowRead<T> {
  items: T[];
  start: number;
  total: number;
}

export async function readWindow<K extends ListKind>(loaders: Loaders, kind: K, window: Window, fallback: number): Promise<WindowRead<KindRecord[K]>> {
  const size = window.first ?? window.last!;
  // Where the window starts and ends, as far as known without the list's length.
  let total = Number.MAX_SAFE_INTEGER;
  if (window.last !== undefined && window.before === undefined) total = (await loaders.page(kind, 1, Math.max(1, size))).total;
  const { start, end } = spanOf(window, total);
  if (end <= start) {
    // Nothing to read but the length (page 1 at the field's default size, as the page field's).
    const known = total === Number.MAX_SAFE_INTEGER ? (await loaders.page(kind, 1, fallback)).total : total;
    return { items: [], start: Math.min(start, known), total: known };
  }
  return readSpan(loaders, kind, start, end - start);
}

// Private: items [start, start + count) from the (at most two) pages of `count` items covering them.
async function readSpan<K extends ListKind>(loaders: Loaders, kind: K, start: number, count: number): Promise<WindowRead<KindRecord[K]>> {
  const firstPage = Math.floor(start / count) + 1;
  const lastPage = Math.floor((start + count - 1) / count) + 1;
  const pages = await Promise.all(
    Array.from({ length: lastPage - firstPage + 1 }, (_, i) => loaders.page(kind, firstPage + i, count)),
  );
  const from = start - (firstPage - 1) * count;
  const total = pages[0]!.total;
  return { items: pages.flatMap((page) => page.items).slice(from, from + count), start: Math.min(start, total), total };
}
