/**
 * The page a client asked for, from an upstream that may cap `pageSize` silently. A short answer
 * while `total` says more exist teaches the cap; larger pages are then assembled from cap-sized
 * upstream pages. A short answer may also be a defect, so an unconfirmed cap is probed (page 1 at
 * one item more) before a plan of many pages trusts it.
 */
import type { UpstreamPage } from '../upstream/records.js';

/** Fetches one upstream page. */
export type PageFetcher<T> = (page: number, pageSize: number) => Promise<UpstreamPage<T>>;

/** What has been learnt about one list's cap. */
export interface CapState {
  cap: number | undefined;
  /** Two answers agreed on `cap`. Default false. */
  confirmed?: boolean;
}

/** Upstream pages an assembled read may take on an unconfirmed cap without checking it first. */
const UNCHECKED_PAGES = 2;

export interface ReadOptions<T> {
  /** Keeps a page learnt on the way where it will be looked for. */
  remember?: (page: number, pageSize: number, result: UpstreamPage<T>) => void;
  /** The list's total, when already known. */
  knownTotal?: number;
}

/** Items `(page - 1) * pageSize` to `page * pageSize - 1`, and the total. */
export async function readRange<T>(
  fetchPage: PageFetcher<T>,
  state: CapState,
  page: number,
  pageSize: number,
  { remember, knownTotal }: ReadOptions<T> = {},
): Promise<UpstreamPage<T>> {
  const offset = (page - 1) * pageSize;
  if (state.cap !== undefined && pageSize > state.cap && (trusted(state, offset, pageSize) || await capHolds(fetchPage, state))) {
    return readCapped(fetchPage, state.cap, offset, pageSize, knownTotal);
  }
  const result = await fetchPage(page, pageSize);
  if (!looksCapped(result, offset, pageSize)) return result;
  const first = page === 1 ? result : await fetchPage(1, pageSize);
  if (!looksCapped(first, 0, pageSize)) return result;
  const cap = first.items.length;
  state.cap = cap;
  state.confirmed = page > 1 && result.items.length === cap;
  if (!trusted(state, offset, pageSize) && !(await capHolds(fetchPage, state))) return result; // a defective page, passed on as it came
  // On page 1 the short answer is upstream page 1 at the cap: kept, not asked again.
  if (page === 1) remember?.(1, cap, result);
  return readCapped(fetchPage, cap, offset, pageSize, result.total, page === 1 ? result : undefined);
}

/** Upstream calls a walk of one list may take: 100,000 records at 100 a page. */
export const MAX_WALK_CALLS = 1000;

/** Every item of a list: the first page, then the rest in parallel. */
export async function readAll<T>(
  fetchPage: PageFetcher<T>,
  state: CapState,
  pageSize: number,
  remember?: ReadOptions<T>['remember'],
): Promise<(T | null)[]> {
  const first = await readRange(fetchPage, state, 1, pageSize, { remember });
  // A `total` beyond reason must not fan out: the walk stops at MAX_WALK_CALLS, counted with the cap.
  const callsPerPage = Math.ceil(pageSize / Math.min(pageSize, state.cap ?? pageSize));
  const pages = Math.min(Math.ceil(first.total / pageSize), Math.max(1, Math.floor(MAX_WALK_CALLS / callsPerPage)));
  const rest = await Promise.all(
    Array.from({ length: Math.max(0, pages - 1) }, (_, i) =>
      readRange(fetchPage, state, i + 2, pageSize, { remember, knownTotal: first.total }),
    ),
  );
  return [first, ...rest].flatMap((result) => result.items);
}

// Private: a short page that is not the last one.
function looksCapped<T>(result: UpstreamPage<T>, offset: number, pageSize: number): boolean {
  return result.items.length > 0 && result.items.length < pageSize && offset + result.items.length < result.total;
}

// Private: whether the cap may plan this read unchecked (confirmed, or few pages).
function trusted(state: CapState, offset: number, pageSize: number): boolean {
  const cap = state.cap;
  if (cap === undefined) return false;
  const pages = Math.floor((offset + pageSize - 1) / cap) - Math.floor(offset / cap) + 1;
  return state.confirmed === true || pages <= UNCHECKED_PAGES;
}

// Private: probes an unconfirmed cap with page 1 at one item more: confirmed, or forgotten.
async function capHolds<T>(fetchPage: PageFetcher<T>, state: CapState): Promise<boolean> {
  const cap = state.cap;
  if (cap === undefined) return false;
  const probe = await fetchPage(1, cap + 1);
  if (probe.items.length === cap && looksCapped(probe, 0, cap + 1)) {
    state.confirmed = true;
    return true;
  }
  if (probe.items.length > cap) {
    state.cap = undefined;
    state.confirmed = false;
  }
  return state.cap !== undefined;
}

// Private: assemble [offset, offset + pageSize) from cap-sized upstream pages.
async function readCapped<T>(
  fetchPage: PageFetcher<T>,
  cap: number,
  offset: number,
  pageSize: number,
  knownTotal?: number,
  knownPageOne?: UpstreamPage<T>,
): Promise<UpstreamPage<T>> {
  const firstPage = Math.floor(offset / cap) + 1;
  let lastPage = Math.floor((offset + pageSize - 1) / cap) + 1;
  const pages: Promise<UpstreamPage<T>>[] = [];
  let total = knownTotal;
  if (knownPageOne !== undefined && firstPage === 1) pages.push(Promise.resolve(knownPageOne));
  if (total === undefined) {
    // Learn the total first so that no page past the end is asked for.
    const first = await fetchPage(firstPage, cap);
    pages.push(Promise.resolve(first));
    total = first.total;
  }
  lastPage = Math.max(firstPage, Math.min(lastPage, Math.ceil(total / cap)));
  for (let p = firstPage + pages.length; p <= lastPage; p += 1) pages.push(fetchPage(p, cap));
  const results = await Promise.all(pages);
  const start = offset - (firstPage - 1) * cap;
  const items = results.flatMap((result) => result.items).slice(start, start + pageSize);
  return { items, total: results[0]!.total };
}
