/** The upstream pages behind a client page or a window: one call per uncached page, cut to the learnt cap. */
import type { ListFacts } from '../../data/sources.js';
import { LISTS, type ListKind } from '../../upstream/operations.js';
import { offsetOf } from '../arguments/cursors.js';
import { CONNECTION_SIZES, windowSize } from '../arguments/window.js';

/** What the estimate needs to know of the gateway's state. */
export interface Planner {
  facts(kind: ListKind): ListFacts;
  isCached(key: string): boolean;
}

/** The upstream calls planned so far. */
export interface Plan {
  planner: Planner;
  /** Planned upstream calls by key, with their cost: the same call counts once. */
  calls: Map<string, number>;
}

/** The page-size cap assumed until the upstream shows its own. */
export const ASSUMED_CAP = 50;

/** Page numbers standing for pages whose place is not known yet. */
const PAGES_UNKNOWN = [1e9, 1e9 + 1];

/**
 * The upstream pages behind one client page. Not knowing the cap, the page is asked for as it is
 * first (and page 1 too, past page 1), which teaches the cap; a page 1 so learnt is kept.
 */
export function listPages(w: Plan, kind: ListKind, page: number, pageSize: number): void {
  const { key, cost } = LISTS[kind];
  const learnt = w.planner.facts(kind).cap;
  const cap = learnt ?? ASSUMED_CAP;
  if (pageSize <= cap) return lookup(w, key(page, pageSize), cost);
  if (learnt === undefined) {
    lookup(w, key(page, pageSize), cost);
    if (page > 1) lookup(w, key(1, pageSize), cost);
  }
  const offset = (page - 1) * pageSize;
  for (let p = Math.floor(offset / cap) + 1; p <= Math.floor((offset + pageSize - 1) / cap) + 1; p += 1) {
    if (learnt !== undefined || page > 1 || p > 1) lookup(w, key(p, cap), cost);
  }
}

/** The upstream pages of the window's size that cover it; `last` without `before` reads page 1 first. */
export function windowPages(w: Plan, kind: ListKind, coordinate: string, args: Record<string, unknown>): void {
  const size = windowSize(coordinate, args) ?? 0;
  if (size === 0) return listPages(w, kind, 1, CONNECTION_SIZES[coordinate]?.fallback ?? 10);
  const before = offsetOf(args.before);
  let start = (offsetOf(args.after) ?? -1) + 1;
  if (typeof args.last === 'number') {
    const end = before ?? w.planner.facts(kind).total;
    if (before === undefined) listPages(w, kind, 1, size);
    if (end === undefined) {
      // Where the list ends is not known yet: two pages of the window's size, somewhere past page 1.
      for (const p of PAGES_UNKNOWN) listPages(w, kind, p, size);
      return;
    }
    start = Math.max(0, end - size);
  }
  for (let p = Math.floor(start / size) + 1; p <= Math.floor((start + size - 1) / size) + 1; p += 1) listPages(w, kind, p, size);
}

/** Plans one upstream call, unless it is cached. */
export function lookup(w: Plan, key: string, cost: number): void {
  if (!w.planner.isCached(key)) w.calls.set(key, cost);
}
