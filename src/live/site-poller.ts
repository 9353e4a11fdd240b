/**
 * The one poller behind every live subscription: the upstream has no events, so the sites that
 * any subscriber watches are read again every `LIVE_POLL_S`, once for all of them, and each read
 * is handed to the watchers of that site. Sites nobody watches are never read; the timer runs
 * only while something is watched.
 *
 * Each round takes the cheaper plan: one site-detail call per watched site, or, when a watcher
 * wants every site (`watchAll`) or more sites are watched than list pages would cost, one
 * list-with-points call per page (`WALK_PAGE_SIZE` sites a page, or the upstream's cap). A round that is still running
 * when the next is due makes the next one wait: rounds never overlap.
 *
 * What changed is the watchers' business (each knows what it last sent): a round hands every
 * read on, with a fingerprint of what a live event shows of the site (live-stock.ts).
 */
import { readAll, type CapState } from '../loaders/page-range.js';
import type { SiteRecord } from '../upstream/records.js';

/** What the poller needs of the upstream. */
export interface PollerApi {
  siteDetail(code: string): Promise<SiteRecord | null>;
  /** One page; a `null` item is one too broken to use (the upstream's list keeps its place). */
  listSitesWithPoints(page: number, pageSize: number): Promise<{ items: (SiteRecord | null)[]; total: number }>;
}

/** One round's read of a site: the record (null: the upstream does not know it), or why it failed. */
export type SiteRead = { site: SiteRecord | null; fingerprint: string } | { error: unknown };

/** One round's read of every site, in the upstream's order, or why it failed. */
export type AllSitesRead = { sites: SiteRecord[] } | { error: unknown };

/** What a round did, for the metrics: upstream calls made and whether any failed. */
export interface PollRound {
  calls: number;
  failed: boolean;
  plan: 'detail' | 'pages';
}

export interface SitePollerOptions {
  api: PollerApi;
  /** Time between rounds, in ms (`LIVE_POLL_S`). */
  intervalMs: number;
  /** Sites per list-with-points page. */
  pageSize: number;
  /** The page-size cap the loaders learnt of list-with-points, if any: a walk then asks for whole pages at once. */
  knownCap?(): number | undefined;
  /** Told of each round. */
  onRound?(round: PollRound): void;
}

export interface SitePoller {
  /** Hands every read of `code` to `watcher` until the returned function is called. */
  watchSite(code: string, watcher: (read: SiteRead) => void): () => void;
  /** Hands every read of all sites to `watcher` until the returned function is called. */
  watchAll(watcher: (read: AllSitesRead) => void): () => void;
  /** Runs a round now (after the one running, if any); resolves when it is done. Tests drive rounds with it. */
  pollNow(): Promise<void>;
  /** Distinct keys watched: site codes, plus one for every site when any watcher wants them all. */
  watchedKeys(): number;
  /** Stops the timer and forgets every watcher. */
  close(): void;
}

export function createSitePoller({ api, intervalMs, pageSize, knownCap, onRound }: SitePollerOptions): SitePoller {
  const siteWatchers = new Map<string, Set<(read: SiteRead) => void>>();
  const allWatchers = new Set<(read: AllSitesRead) => void>();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  // Pages of the last walk: what the page plan costs, known once a walk has been made.
  let knownPages: number | undefined;
  const cap: CapState = { cap: undefined };

  const watching = () => siteWatchers.size > 0 || allWatchers.size > 0;
  // The timer runs while something is watched, and never keeps the process alive on its own.
  const startOrStop = () => {
    if (watching() && timer === undefined) timer = setInterval(() => void queueRound(), intervalMs).unref();
    else if (!watching() && timer !== undefined) {
      clearInterval(timer);
      timer = undefined;
    }
  };
  const queueRound = (): Promise<void> => (running = running.then(round, round));

  async function round(): Promise<void> {
    if (!watching()) return;
    const usePages = allWatchers.size > 0 || (knownPages !== undefined && siteWatchers.size > knownPages);
    const result = usePages ? await walk() : await details();
    onRound?.(result);
  }

  async function details(): Promise<PollRound> {
    const codes = [...siteWatchers.keys()];
    const reads = await Promise.all(codes.map(async (code): Promise<SiteRead> => {
      try {
        const site = await api.siteDetail(code);
        return { site, fingerprint: fingerprintOf(site) };
      } catch (error) {
        return { error };
      }
    }));
    codes.forEach((code, i) => tell(siteWatchers.get(code), reads[i]!));
    return { calls: codes.length, failed: reads.some((read) => 'error' in read), plan: 'detail' };
  }

  async function walk(): Promise<PollRound> {
    let read: AllSitesRead;
    let calls = 0;
    // The list's page-size cap, as the loaders learn it (page-range.ts): a walk asks for pages the
    // upstream will answer whole.
    const fetchPage = (page: number, size: number) => {
      calls += 1;
      return api.listSitesWithPoints(page, size);
    };
    cap.cap ??= knownCap?.();
    try {
      const items = await readAll(fetchPage, cap, pageSize);
      knownPages = calls;
      read = { sites: items.filter((site): site is SiteRecord => site !== null) };
    } catch (error) {
      read = { error };
    }
    tell(allWatchers, read);
    const byCode = 'sites' in read ? new Map(read.sites.map((site) => [site.code, site])) : undefined;
    for (const [code, watchers] of siteWatchers) {
      const site = byCode?.get(code) ?? null;
      tell(watchers, byCode === undefined ? { error: (read as { error: unknown }).error } : { site, fingerprint: fingerprintOf(site) });
    }
    return { calls, failed: 'error' in read, plan: 'pages' };
  }

  return {
    watchSite(code, watcher) {
      let watchers = siteWatchers.get(code);
      if (watchers === undefined) siteWatchers.set(code, (watchers = new Set()));
      watchers.add(watcher);
      startOrStop();
      return () => {
        watchers.delete(watcher);
        if (watchers.size === 0 && siteWatchers.get(code) === watchers) siteWatchers.delete(code);
        startOrStop();
      };
    },
    watchAll(watcher) {
      allWatchers.add(watcher);
      startOrStop();
      return () => {
        allWatchers.delete(watcher);
        startOrStop();
      };
    },
    pollNow: queueRound,
    watchedKeys: () => siteWatchers.size + (allWatchers.size > 0 ? 1 : 0),
    close() {
      siteWatchers.clear();
      allWatchers.clear();
      startOrStop();
    },
  };
}

/**
 * What a live event shows of a site, as text: its state, its hours, and every lane's product
 * and stock. Two reads with the same fingerprint make no event.
 */
export function fingerprintOf(site: SiteRecord | null): string {
  if (site === null) return 'none';
  const lanes = (site.points ?? []).map((point) => `${point.code}:${point.cargoLanes.map((lane) => `${lane.goodsCode ?? ''}=${lane.stock ?? ''}`).join(',')}`);
  return `${site.state}|${site.openTime ?? ''}|${site.closeTime ?? ''}|${lanes.join(';')}`;
}

// Private: a watcher that throws must not keep the others from their read.
function tell<T>(watchers: Set<(read: T) => void> | undefined, read: T): void {
  for (const watcher of [...(watchers ?? [])]) {
    try {
      watcher(read);
    } catch {
      // live-stock.ts's watchers catch their own failures; this is the last line of defence
    }
  }
}
