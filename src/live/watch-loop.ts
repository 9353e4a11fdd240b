/**
 * The watchers of a poller and the rhythm of its rounds: who watches which key (`site:<code>` or
 * `all`), a round every `intervalMs` while anything is watched, rounds that never overlap. Timer
 * and rounds run in the context the loop was made in, not in the first subscriber's request,
 * whose async context they would otherwise carry for good.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { AllSitesRead, SitePoller, SiteRead, SiteReads } from './polling.js';

/** The key of every site. */
export const ALL_SITES_KEY = 'all';

/** The key of one site. */
export function siteKey(code: string): string {
  return `site:${code}`;
}

/** The site code of a site key; `undefined` for the key of every site. */
export function codeOfKey(key: string): string | undefined {
  return key.startsWith('site:') ? key.slice('site:'.length) : undefined;
}

export interface WatchLoopOptions {
  /** Time between rounds, in ms. */
  intervalMs: number;
  /** One round: read what is watched (`codes`, `wantsAll`) and `deliver` it. */
  round(): Promise<void>;
  /** Told when the last watcher of a key leaves (not on `close`). */
  onForget?(key: string): void;
}

export interface WatchLoop extends SitePoller {
  /** Site codes watched now. */
  codes(): string[];
  /** Whether any watcher wants every site. */
  wantsAll(): boolean;
  /** Every key watched now. */
  keys(): string[];
  /** Whether `key` is watched now. */
  watches(key: string): boolean;
  /** Hands each read to its watchers: every site's first, then each site's. */
  deliver(reads: Pick<SiteReads, 'sites' | 'all'>): void;
  deliverSite(code: string, read: SiteRead): void;
  deliverAll(read: AllSitesRead): void;
  /** Runs `task` once the rounds queued before it are done; no round overlaps it. */
  queue(task: () => Promise<void>): Promise<void>;
}

/** The watchers of a poller, with a round every `intervalMs` while any is there. */
export function createWatchLoop({ intervalMs, round, onForget }: WatchLoopOptions): WatchLoop {
  const siteWatchers = new Map<string, Set<(read: SiteRead) => void>>();
  const allWatchers = new Set<(read: AllSitesRead) => void>();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const outside = AsyncLocalStorage.snapshot();

  const watching = () => siteWatchers.size > 0 || allWatchers.size > 0;
  // The timer runs while something is watched, and never keeps the process alive on its own.
  const startOrStop = () => {
    if (watching() && timer === undefined) timer = outside(() => setInterval(() => void queueRound(), intervalMs).unref());
    else if (!watching() && timer !== undefined) {
      clearInterval(timer);
      timer = undefined;
    }
  };
  const queue = (task: () => Promise<void>): Promise<void> => {
    const run = () => outside(task);
    return (running = running.then(run, run).catch(() => undefined));
  };
  const queueRound = () => queue(async () => {
    if (watching()) await round();
  });

  return {
    watchSite(code, watcher) {
      let watchers = siteWatchers.get(code);
      if (watchers === undefined) siteWatchers.set(code, (watchers = new Set()));
      watchers.add(watcher);
      startOrStop();
      return () => {
        watchers.delete(watcher);
        if (watchers.size === 0 && siteWatchers.get(code) === watchers) {
          siteWatchers.delete(code);
          onForget?.(siteKey(code));
        }
        startOrStop();
      };
    },
    watchAll(watcher) {
      allWatchers.add(watcher);
      startOrStop();
      return () => {
        if (allWatchers.delete(watcher) && allWatchers.size === 0) onForget?.(ALL_SITES_KEY);
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
    codes: () => [...siteWatchers.keys()],
    wantsAll: () => allWatchers.size > 0,
    keys: () => [...(allWatchers.size > 0 ? [ALL_SITES_KEY] : []), ...[...siteWatchers.keys()].map(siteKey)],
    watches(key) {
      const code = codeOfKey(key);
      return code === undefined ? allWatchers.size > 0 : siteWatchers.has(code);
    },
    deliver({ sites, all }) {
      if (all !== undefined) tell(allWatchers, all);
      for (const [code, read] of sites) tell(siteWatchers.get(code), read);
    },
    deliverSite: (code, read) => tell(siteWatchers.get(code), read),
    deliverAll: (read) => tell(allWatchers, read),
    queue,
  };
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
