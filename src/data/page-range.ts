/**
 * Serving the page a client asked for from an upstream that may cap `pageSize` silently.
 *
 * The upstream's maximum page size is not documented. A capped answer gives itself away: fewer
 * items than asked while `total` says more exist. Such an answer teaches the effective cap (kept
 * per list); from then on a larger page is assembled from the cap-sized upstream pages that cover
 * its range, so those pages are shared (and cached) by every client page size.
 *
 * One short answer may also be a defect (a truncated page), and a cap learnt from it would make
 * every larger page cost one call per item. So a cap is evidence that can be revised: it is
 * confirmed when a second answer agrees (the same length), and before a plan that needs more
 * than two upstream pages trusts an unconfirmed cap, one probe asks page 1 at one item more.
 * A full answer disproves the cap (it is forgotten, and learnt again from the next short page);
 * a capped one confirms it. A real cap costs that probe once; a false one, one call.
 */
import type { UpstreamPage } from '../upstream/records.js';

/** Fetches one upstream page (through the cache). */
export type PageFetcher<T> = (page: number, pageSize: number) => Promise<UpstreamPage<T>>;

/** What has been learnt about one list's cap. */
export interface CapState {
  cap: number | undefined;
  /** Two answers agreed on `cap` (else a probe checks it before a costly plan). Default false. */
  confirmed?: boolean;
}

/** Upstream pages an assembled read may take on an unconfirmed cap without checking it first. */
const UNCHECKED_PAGES = 2;

export interface ReadOptions<T> {
  /** Keeps a page learnt on the way (page 1 at the cap) where it will be looked for. */
  remember?: (page: number, pageSize: number, result: UpstreamPage<T>) => void;
  /** The list's total, when already known: cut pages need not ask for it first. */
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
  // On a later page, page 1 is a second answer: the two agree on a real cap.
  state.cap = cap;
  state.confirmed = page > 1 && result.items.length === cap;
  if (!trusted(state, offset, pageSize) && !(await capHolds(fetchPage, state))) return result; // a defective page, passed on as it came
  // On page 1 the short answer is exactly upstream page 1 at the cap: no need to ask again,
  // now or later (`remember` keeps it where a cap-sized page 1 will be looked for).
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
  // A `total` beyond reason is a defect of the answer, not a reason to fan out: the walk stops at
  // MAX_WALK_CALLS upstream calls, counted with the cap learnt (a cap of 1 makes a page 100 calls).
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

// Private: whether the learnt cap may plan the read of [offset, offset + pageSize) unchecked: it
// is confirmed, or the plan takes at most UNCHECKED_PAGES pages.
function trusted(state: CapState, offset: number, pageSize: number): boolean {
  const cap = state.cap;
  if (cap === undefined) return false;
  const pages = Math.floor((offset + pageSize - 1) / cap) - Math.floor(offset / cap) + 1;
  return state.confirmed === true || pages <= UNCHECKED_PAGES;
}

// Private: checks an unconfirmed cap with page 1 at one item more (usually cached once asked):
// capped, the cap is confirmed; answered in full, the cap is forgotten. (On a later page the
// upstream may offset by either page size, which is why page 1 tells, in learning too.)
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
