/**
 * What every poller of live stock shares, alone (site-poller.ts) or as one of a fleet
 * (fleet-poller.ts): the `SitePoller` interface its subscriptions use, the reads it hands on, and
 * the reader that reads a set of sites by the cheaper plan.
 *
 * The cheaper plan: one site-detail call per site, or, when every site is wanted or more sites
 * are wanted than list pages would cost, one list-with-points call per page (`pageSize` sites a
 * page). What the page plan costs is known once a walk has been made; until then, details.
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

/** One reading of some sites: a read per site code asked for, every site's read if asked for. */
export interface SiteReads {
  sites: Map<string, SiteRead>;
  /** Present only when every site was asked for. */
  all: AllSitesRead | undefined;
  round: PollRound;
}

export interface SiteReader {
  /** Reads `codes` (and every site, when `all`) by the cheaper plan. Never rejects: a failure is a read. */
  read(codes: readonly string[], all: boolean): Promise<SiteReads>;
}

export interface SiteReaderOptions {
  api: PollerApi;
  /** Sites per list-with-points page. */
  pageSize: number;
  /** The page-size cap the loaders learnt of list-with-points, if any: a walk then asks for whole pages at once. */
  knownCap?(): number | undefined;
}

/** A reader over `api`; it remembers how many pages a walk took, to price the page plan. */
export function createSiteReader({ api, pageSize, knownCap }: SiteReaderOptions): SiteReader {
  // Pages of the last walk: what the page plan costs, known once a walk has been made.
  let knownPages: number | undefined;
  const cap: CapState = { cap: undefined };

  async function details(codes: readonly string[]): Promise<SiteReads> {
    const reads = await Promise.all(codes.map(async (code): Promise<SiteRead> => {
      try {
        const site = await api.siteDetail(code);
        return { site, fingerprint: fingerprintOf(site) };
      } catch (error) {
        return { error };
      }
    }));
    const sites = new Map(codes.map((code, i) => [code, reads[i]!]));
    return { sites, all: undefined, round: { calls: codes.length, failed: reads.some((read) => 'error' in read), plan: 'detail' } };
  }

  async function walk(codes: readonly string[], all: boolean): Promise<SiteReads> {
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
    const byCode = 'sites' in read ? new Map(read.sites.map((site) => [site.code, site])) : undefined;
    const sites = new Map(codes.map((code): [string, SiteRead] => {
      if (byCode === undefined) return [code, { error: (read as { error: unknown }).error }];
      const site = byCode.get(code) ?? null;
      return [code, { site, fingerprint: fingerprintOf(site) }];
    }));
    return { sites, all: all ? read : undefined, round: { calls, failed: 'error' in read, plan: 'pages' } };
  }

  return {
    read(codes, all) {
      const usePages = all || (knownPages !== undefined && codes.length > knownPages);
      return usePages ? walk(codes, all) : details(codes);
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
