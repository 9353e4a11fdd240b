/**
 * The one poller behind every live subscription: the upstream has no events, so the sites that
 * any subscriber watches are read again every `LIVE_POLL_S`, once for all of them, and each read
 * is handed to the watchers of that site. Sites nobody watches are never read; the timer runs
 * only while something is watched.
 *
 * Each round takes the cheaper plan (polling.ts): one site-detail call per watched site, or,
 * when a watcher wants every site (`watchAll`) or more sites are watched than list pages would
 * cost, one list-with-points call per page (`WALK_PAGE_SIZE` sites a page, or the upstream's
 * cap). A round still running when the next is due makes the next one wait: rounds never
 * overlap (watch-loop.ts).
 *
 * What changed is the watchers' business (each knows what it last sent): a round hands every
 * read on, with a fingerprint of what a live event shows of the site (live-stock.ts).
 *
 * This is the poller of a gateway alone; with `REDIS_URL`, fleet-poller.ts shares the polling
 * among the replicas.
 */
import { createSiteReader, type PollRound, type SitePoller, type SiteReaderOptions } from './polling.js';
import { createWatchLoop } from './watch-loop.js';

export { fingerprintOf, type AllSitesRead, type PollerApi, type PollRound, type SitePoller, type SiteRead } from './polling.js';

export interface SitePollerOptions extends SiteReaderOptions {
  /** Time between rounds, in ms (`LIVE_POLL_S`). */
  intervalMs: number;
  /** Told of each round. */
  onRound?(round: PollRound): void;
}

/** The poller of a gateway alone: every round reads what its own watchers watch. */
export function createSitePoller({ intervalMs, onRound, ...reading }: SitePollerOptions): SitePoller {
  const reader = createSiteReader(reading);
  const loop = createWatchLoop({
    intervalMs,
    async round() {
      const reads = await reader.read(loop.codes(), loop.wantsAll());
      loop.deliver(reads);
      onRound?.(reads.round);
    },
  });
  return {
    watchSite: loop.watchSite,
    watchAll: loop.watchAll,
    pollNow: loop.pollNow,
    watchedKeys: loop.watchedKeys,
    close: loop.close,
  };
}
