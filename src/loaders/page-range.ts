/**
 * Serving the page a client asked for from an upstream that may cap `pageSize` silently.
 *
 * The upstream's maximum page size is not documented. A capped answer gives itself away: fewer
 * items than asked while `total` says more exist. The first such answer teaches the effective
 * cap (kept per list for the life of the process); from then on a larger page is assembled from
 * the cap-sized upstream pages that cover its range, so those pages are shared (and cached) by
 * every client page size.
 */
import type { UpstreamPage } from '../upstream/records.js';

/** Fetches one upstream page (through the cache). */
export type PageFetcher<T> = (page: number, pageSize: number) => Promise<UpstreamPage<T>>;

/** What has been learnt about one list's cap. */
export interface CapState {
  cap: number | undefined;
}

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
  if (state.cap !== undefined && pageSize > state.cap) {
    return readCapped(fetchPage, state.cap, offset, pageSize, knownTotal);
  }
  const result = await fetchPage(page, pageSize);
  if (!looksCapped(result, offset, pageSize)) return result;
  const cap = await learnCap(fetchPage, page, pageSize, result);
  if (cap === undefined) return result;
  state.cap = cap;
  // On page 1 the short answer is exactly upstream page 1 at the cap: no need to ask again,
  // now or later (`remember` keeps it where a cap-sized page 1 will be looked for).
  if (page === 1) remember?.(1, cap, result);
  return readCapped(fetchPage, cap, offset, pageSize, result.total, page === 1 ? result : undefined);
}

/** Pages a walk of one list may take: 100,000 records at 100 a page. */
const MAX_WALK_PAGES = 1000;

/** Every item of a list: the first page, then the rest in parallel. */
export async function readAll<T>(
  fetchPage: PageFetcher<T>,
  state: CapState,
  pageSize: number,
  remember?: ReadOptions<T>['remember'],
): Promise<(T | null)[]> {
  const first = await readRange(fetchPage, state, 1, pageSize, { remember });
  // A `total` beyond reason is a defect of the answer, not a reason to fan out.
  const pages = Math.min(Math.ceil(first.total / pageSize), MAX_WALK_PAGES);
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

// Private: on page 1 the short answer's length is the cap. On a later page the upstream may have
// computed its offset with either page size, so ask page 1 (usually cached) to be sure.
async function learnCap<T>(
  fetchPage: PageFetcher<T>,
  page: number,
  pageSize: number,
  short: UpstreamPage<T>,
): Promise<number | undefined> {
  const first = page === 1 ? short : await fetchPage(1, pageSize);
  return looksCapped(first, 0, pageSize) ? first.items.length : undefined;
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
