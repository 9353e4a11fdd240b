/**
 * What every live poller shares: the `SitePoller` interface, its reads, and the reader of a set of
 * sites by the cheaper plan: a detail call per site, or a list-with-points call per page when
 * every site is wanted or pages cost fewer calls (priced by the last walk, else the loaders' view
 * of the list, else a probe of page 1 that is also the walk's first page). A code a walk does not
 * bring is unknown (null), unless the walk had broken items; then its detail tells.
 */
import { readAll, type CapState } from '../data/page-range.js';
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
  /** Sites in the list as the loaders last saw it, if they did: prices the page plan before any walk. */
  knownTotal?(): number | undefined;
}

/** Sites wanted from which, the list's size unknown, one probe of page 1 is worth it. */
const PROBE_MIN = 3;

type Page = Awaited<ReturnType<PollerApi['listSitesWithPoints']>>;

/** A reader over `api`; it remembers what its walks and probes learnt of the list, to price the page plan. */
export function createSiteReader({ api, pageSize, knownCap, knownTotal }: SiteReaderOptions): SiteReader {
  // Pages of the last walk: what the page plan costs, once a walk has been made.
  let knownPages: number | undefined;
  // Sites in the list, as the last probe or walk page said.
  let total: number | undefined;
  const cap: CapState = { cap: undefined };

  async function details(codes: readonly string[], extraCalls = 0): Promise<SiteReads> {
    const reads = await Promise.all(codes.map(async (code): Promise<SiteRead> => {
      try {
        const site = await api.siteDetail(code);
        return { site, fingerprint: fingerprintOf(site) };
      } catch (error) {
        return { error };
      }
    }));
    const sites = new Map(codes.map((code, i) => [code, reads[i]!]));
    return { sites, all: undefined, round: { calls: codes.length + extraCalls, failed: reads.some((read) => 'error' in read), plan: 'detail' } };
  }

  async function walk(codes: readonly string[], all: boolean, probe?: Page): Promise<SiteReads> {
    let read: AllSitesRead;
    let calls = probe === undefined ? 0 : 1;
    let pageOne = probe;
    // A walk asks for pages the upstream answers whole (its cap); the probe, if any, is page 1.
    const fetchPage = async (page: number, size: number) => {
      if (page === 1 && pageOne !== undefined && (size === pageSize || size === pageOne.items.length)) {
        const first = pageOne;
        pageOne = undefined;
        return first;
      }
      calls += 1;
      const result = await api.listSitesWithPoints(page, size);
      total = result.total;
      return result;
    };
    cap.cap ??= knownCap?.();
    let broken = false;
    try {
      const items = await readAll(fetchPage, cap, pageSize);
      knownPages = calls;
      read = { sites: items.filter((site): site is SiteRecord => site !== null) };
      broken = read.sites.length < items.length;
    } catch (error) {
      read = { error };
    }
    const byCode = 'sites' in read ? new Map(read.sites.map((site) => [site.code, site])) : undefined;
    const sites = new Map(codes.map((code): [string, SiteRead] => {
      if (byCode === undefined) return [code, { error: (read as { error: unknown }).error }];
      const site = byCode.get(code) ?? null;
      return [code, { site, fingerprint: fingerprintOf(site) }];
    }));
    // A code missing from a walk with broken items may be one of them: its detail tells.
    const missing = broken ? codes.filter((code) => !byCode!.has(code)) : [];
    const confirmed = missing.length > 0 ? await details(missing) : undefined;
    for (const [code, site] of confirmed?.sites ?? []) sites.set(code, site);
    const failed = 'error' in read || confirmed?.round.failed === true;
    return { sites, all: all ? read : undefined, round: { calls: calls + (confirmed?.round.calls ?? 0), failed, plan: 'pages' } };
  }

  // Private: upstream calls a walk would take, if anything tells.
  function walkCalls(): number | undefined {
    if (knownPages !== undefined) return knownPages;
    const sites = total ?? knownTotal?.();
    if (sites === undefined) return undefined;
    cap.cap ??= knownCap?.();
    return Math.max(1, Math.ceil(sites / Math.min(pageSize, cap.cap ?? pageSize)));
  }

  // Private: page 1, when nothing tells what a walk costs: its total does, a short answer the cap.
  async function probeList(): Promise<Page | undefined> {
    try {
      const page = await api.listSitesWithPoints(1, pageSize);
      total = page.total;
      if (page.items.length > 0 && page.items.length < pageSize && page.items.length < page.total) cap.cap ??= page.items.length;
      return page;
    } catch {
      return undefined;
    }
  }

  return {
    async read(codes, all) {
      if (all) return walk(codes, all);
      let probe: Page | undefined;
      let probed = 0;
      if (walkCalls() === undefined && codes.length >= PROBE_MIN) {
        probed = 1;
        probe = await probeList();
      }
      const cost = walkCalls();
      if (cost !== undefined && cost < codes.length) return walk(codes, false, probe);
      return details(codes, probed);
    },
  };
}

/** What a live event shows of a site, as text: two reads with the same fingerprint make no event. */
export function fingerprintOf(site: SiteRecord | null): string {
  if (site === null) return 'none';
  const lanes = (site.points ?? []).map((point) => `${point.code}:${point.cargoLanes.map((lane) => `${lane.goodsCode ?? ''}=${lane.stock ?? ''}`).join(',')}`);
  return `${site.state}|${site.openTime ?? ''}|${site.closeTime ?? ''}|${lanes.join(';')}`;
}
