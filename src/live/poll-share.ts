/**
 * The live polls' share of the upstream: a round may want thousands of calls at once, and the
 * upstream client's bulkhead serves client requests too. So at most a quarter of its slots (at
 * least one) go to polls, the rest waiting in a queue of their own: client requests always find
 * three quarters of the slots, and the shared queue, free of polls.
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
