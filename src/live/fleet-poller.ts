/**
 * The live poller of a replica in a fleet: one replica polls each watched key for the whole fleet
 * and publishes each read, so the upstream sees one call per site or page per interval however
 * many replicas have subscribers. Each round claims every watched key (taking free leases,
 * renewing its own) and claims again halfway, so a lease lives at most one interval; a released
 * key, or one whose holder died, is claimed by a watching replica as soon as it is free. With
 * Redis down each replica polls its own keys, as alone: no subscription ends because of Redis.
 */
import type { LiveBus } from '../redis/live-bus.js';
import { createSiteReader, type SitePoller } from './polling.js';
import { decodeAllSitesRead, decodeSiteRead, encodeRead } from './read-codec.js';
import type { SitePollerOptions } from './site-poller.js';
import { ALL_SITES_KEY, codeOfKey, createWatchLoop, siteKey } from './watch-loop.js';

export interface FleetPollerOptions extends SitePollerOptions {
  /** The leases and the channel the replicas share. */
  bus: LiveBus;
}

/** Added to half the interval for a lease's life, at most (and at most half an interval), in ms: a renewal may come that late. */
const LEASE_MARGIN_MS = 1000;
/** After another replica's lease should have run out, wait this much more before claiming it, in ms. */
const TAKEOVER_SLACK_MS = 50;

/** A replica's poller that shares the polling with the fleet's other replicas through `bus`. */
export function createFleetPoller({ bus, intervalMs, onRound, ...reading }: FleetPollerOptions): SitePoller {
  const reader = createSiteReader(reading);
  const ttlMs = intervalMs / 2 + Math.min(LEASE_MARGIN_MS, intervalMs / 2);
  // The claim halfway between rounds, while anything is watched.
  let renewal: NodeJS.Timeout | undefined;
  // The keys this replica held at its last claim.
  let held = new Set<string>();
  let takeover: NodeJS.Timeout | undefined;
  // A claim for what was freed is queued: many leases freed at once (a replica stopping) cost one.
  let claimQueued = false;
  let closed = false;
  const loop = createWatchLoop({ intervalMs, round: () => round('held'), onForget: forget });
  const unlisten = bus.listen(hear);

  // Private: claims what is watched; polls the keys held (`held`) or just won (`won`).
  async function round(poll: 'held' | 'won'): Promise<void> {
    const keys = loop.keys();
    if (keys.length === 0) return;
    renewal ??= closed ? undefined : setInterval(() => void (loop.watchedKeys() > 0 && queueClaim()), intervalMs / 2).unref();
    const left = bus.usable ? await bus.claim(keys, ttlMs) : undefined;
    if (closed) return bus.release(keys.filter((_, i) => left?.[i] === 0));
    if (left === undefined) {
      held = new Set();
      armTakeover([]);
      return pollAndTell(keys, false);
    }
    const before = held;
    held = new Set(keys.filter((key, i) => left[i] === 0 && loop.watches(key)));
    const forgotten = keys.filter((key, i) => left[i] === 0 && !held.has(key)); // unwatched during the claim
    bus.release(forgotten);
    armTakeover(left.filter((ms) => ms > 0));
    const mine = [...held].filter((key) => poll === 'held' || !before.has(key));
    if (mine.length > 0) await pollAndTell(mine, true);
  }

  // Private: reads `keys` by the cheaper plan, tells this replica's watchers, and the fleet.
  async function pollAndTell(keys: string[], publish: boolean): Promise<void> {
    const codes = keys.map(codeOfKey).filter((code): code is string => code !== undefined);
    const reads = await reader.read(codes, keys.includes(ALL_SITES_KEY));
    onRound?.(reads.round);
    loop.deliver(reads);
    if (!publish || closed) return;
    await Promise.all([
      ...(reads.all === undefined ? [] : [bus.publish(ALL_SITES_KEY, encodeRead(reads.all))]),
      ...[...reads.sites].map(([code, read]) => bus.publish(siteKey(code), encodeRead(read))),
    ]);
  }

  // Private: another replica's read of a key watched here, or the notice that its lease is free.
  function hear(key: string, body: string): void {
    if (closed || !loop.watches(key)) return;
    if (body === '') return queueClaim();
    const code = codeOfKey(key);
    if (code === undefined) {
      const read = decodeAllSitesRead(body);
      if (read === undefined) bus.unreadable();
      else loop.deliverAll(read);
    } else {
      const read = decodeSiteRead(body);
      if (read === undefined) bus.unreadable();
      else loop.deliverSite(code, read);
    }
  }

  // Private: a claim once the soonest of the other replicas' leases (ms left) runs out.
  function armTakeover(leases: number[]): void {
    clearTimeout(takeover);
    takeover = undefined;
    if (leases.length === 0 || closed) return;
    takeover = setTimeout(() => {
      takeover = undefined;
      queueClaim();
    }, Math.min(...leases) + TAKEOVER_SLACK_MS).unref();
  }

  // Private: a round that claims now and polls only what it won, after the round running, if any.
  function queueClaim(): void {
    if (claimQueued) return;
    claimQueued = true;
    void loop.queue(() => {
      claimQueued = false;
      return round('won');
    });
  }

  function forget(key: string): void {
    if (held.delete(key)) bus.release([key]);
    if (loop.watchedKeys() === 0) stopTimers();
  }

  function stopTimers(): void {
    armTakeover([]);
    clearInterval(renewal);
    renewal = undefined;
  }

  return {
    watchSite: loop.watchSite,
    watchAll: loop.watchAll,
    pollNow: loop.pollNow,
    watchedKeys: loop.watchedKeys,
    close() {
      closed = true;
      unlisten();
      stopTimers();
      bus.release([...held]);
      held = new Set();
      loop.close();
    },
  };
}
