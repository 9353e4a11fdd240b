/**
 * The live polls' share of the upstream: a poll round may want thousands of calls at once (a
 * detail per watched site, or a walk's pages), and the upstream client's bulkhead serves every
 * client request too. Sent straight there, one big round filled the shared queue (calls refused
 * `queue_full`) and made ordinary requests wait behind it (330 ms → 2 s). So the poller's calls
 * pass here first: at most a quarter of `UPSTREAM_MAX_CONCURRENCY` in flight (at least one),
 * the rest waiting in a queue of their own, in order. A round takes longer; client requests
 * always find three quarters of the slots, and the shared queue, free of polls.
 *
 * The queue holds at most one round's calls (rounds never overlap: watch-loop.ts), which
 * `LIVE_MAX_WATCHED_KEYS` bounds.
 */
import type { PollerApi } from './polling.js';

/** The share of the upstream bulkhead's slots live polls may hold. */
const SHARE = 1 / 4;

/** Poll calls in flight at most, of `upstreamMaxConcurrency` slots in all. */
export function pollConcurrency(upstreamMaxConcurrency: number): number {
  return Math.max(1, Math.floor(upstreamMaxConcurrency * SHARE));
}

/** `api` with at most `limit` of its calls in flight at once; the others wait their turn. */
export function limitApi(api: PollerApi, limit: number): PollerApi {
  const run = createLimiter(limit);
  return {
    siteDetail: (code) => run(() => api.siteDetail(code)),
    listSitesWithPoints: (page, pageSize) => run(() => api.listSitesWithPoints(page, pageSize)),
  };
}

// Private: runs tasks with at most `limit` running; a task that ends hands its turn to the first waiting.
function createLimiter(limit: number): <T>(task: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: Array<() => void> = [];
  return async (task) => {
    if (running < limit) running += 1;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await task();
    } finally {
      const next = waiting.shift();
      if (next === undefined) running -= 1;
      else next();
    }
  };
}
