/**
 * The poller of a gateway alone: the upstream has no events, so the sites any subscriber watches
 * are read every interval, once for all of them, by the cheaper plan, and each read (with its
 * fingerprint) is handed to that site's watchers, who decide what changed. Sites nobody watches
 * are never read; rounds never overlap.
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
