/**
 * A replica's cache: an in-process LRU level, optionally in front of a shared level
 * (redis-level.ts). A local miss reads the shared level once per key, taking entries in with
 * their age so they expire here when they expire there; a load runs once here, then once across
 * replicas through the shared fill. `peek` is local only.
 */
import { LRUCache } from 'lru-cache';
import { deadline, type Clock } from '../base/clock.js';
import { dropped as droppedAt, DropIncomplete, kindOfKey, type Cache, type CacheObserver, type LoadScope, type LookupResult } from './cache.js';
import { createInFlight } from './in-flight.js';

/** An entry of the shared level, as a replica sees it. */
export interface SharedEntry {
  value: unknown;
  /** Time since it was loaded (by any replica), in ms. */
  ageMs: number;
  ttlMs: number;
}

/** What the LRU level needs of a shared level. None of these rejects on a level failure. */
export interface SharedLevel {
  /** The entry stored under `key`, if any and readable. */
  read(key: string): Promise<SharedEntry | undefined>;
  /** A fresh entry: loaded with `load` (and stored), or the one another replica loaded meanwhile. */
  fill(key: string, ttlMs: number, load: (signal: AbortSignal) => Promise<unknown>, signal: AbortSignal): Promise<SharedEntry>;
  /** Stores `value` without waiting. */
  write(key: string, value: unknown, ttlMs: number): void;
  /** Whether a replica holds the fill lock of `key` now. */
  filling(key: string): Promise<boolean>;
  /** Deletes the entries under `keys` and of `kinds`; resolves how many, or rejects with `DropIncomplete`. */
  drop(keys: readonly string[], kinds: readonly string[]): Promise<number>;
}

export interface LruCacheOptions {
  /** Entries held before the least recently used is evicted. */
  maxEntries: number;
  /** How long past its TTL an entry is served at once while it is refreshed in the background, in ms. Default 0. */
  staleWhileRevalidateMs?: number;
  /** How long past its TTL an entry is served when its refresh fails, in ms. Default 0. */
  staleIfErrorMs?: number;
  /** The clock of TTLs and stale windows (its monotonic face). */
  clock: Clock;
  /** Told of a failed background refresh, which never reaches a caller. */
  onBackgroundError?(key: string, error: unknown): void;
  /** Told how each `getOrLoad` was answered. Default: none. */
  observer?: CacheObserver;
  /** A level shared with other replicas, behind this one. Default: none. */
  shared?: SharedLevel;
}


interface Entry {
  value: unknown;
  /** On this process's clock: the shared load time, moved by the entry's age. */
  loadedAt: number;
  ttlMs: number;
}

type Load<T> = (signal: AbortSignal) => Promise<T>;

/** How often `settled` looks again whether a load is still running, in ms. */
const SETTLED_POLL_MS = 25;

/** No shared level: a fill is the load itself. */
const IN_PROCESS_ONLY: SharedLevel = {
  read: async () => undefined,
  fill: async (_key, ttlMs, load, signal) => ({ value: await load(signal), ageMs: 0, ttlMs }),
  write: () => {},
  filling: async () => false,
  drop: async () => 0,
};

export function createLruCache(options: LruCacheOptions): Cache {
  const shared = options.shared ?? IN_PROCESS_ONLY;
  const { clock } = options;
  const swrMs = options.staleWhileRevalidateMs ?? 0;
  const sieMs = options.staleIfErrorMs ?? 0;
  const keepMs = Math.max(swrMs, sieMs);
  const lru = new LRUCache<string, Entry>({ max: options.maxEntries, perf: { now: () => clock.monotonic() } });
  const reads = createInFlight();
  const loads = createInFlight();
  const looks = createInFlight();
  const tell = (key: string, result: LookupResult, expiresAt: number) =>
    options.observer?.onLookup?.(kindOfKey(key), result, expiresAt);

  // Keeps an entry here for what is left of its TTL and stale window; none left: not kept.
  function takeIn(key: string, { value, ageMs, ttlMs }: SharedEntry): Entry | undefined {
    const leftMs = ttlMs + keepMs - ageMs;
    if (leftMs <= 0) return undefined;
    const entry = { value, loadedAt: clock.monotonic() - ageMs, ttlMs };
    lru.set(key, entry, { ttl: leftMs });
    return entry;
  }

  const readShared = (key: string, signal: AbortSignal | undefined) =>
    reads.join(key, async () => {
      const found = await shared.read(key);
      return found && takeIn(key, found);
    }, signal);

  const fill = (key: string, ttlMs: number, load: Load<unknown>) => async (signal: AbortSignal) => {
    const entry = await shared.fill(key, ttlMs, load, signal);
    return takeIn(key, entry) ?? { value: entry.value, loadedAt: clock.monotonic() - entry.ageMs, ttlMs: entry.ttlMs };
  };

  // A load shared here and, through the fill, by the replicas; on failure `stale` serves within stale-if-error.
  async function loadShared<T>(key: string, ttlMs: number, load: Load<T>, scope?: LoadScope, stale?: Entry): Promise<T> {
    try {
      const entry = await loads.join(key, fill(key, ttlMs, load), scope?.signal);
      tell(key, 'miss', entry.loadedAt + entry.ttlMs);
      return entry.value as T;
    } catch (error) {
      const age = stale === undefined ? Infinity : clock.monotonic() - stale.loadedAt;
      if (stale === undefined || age > stale.ttlMs + sieMs) {
        tell(key, 'miss', clock.monotonic());
        throw error;
      }
      tell(key, 'stale', clock.monotonic());
      scope?.onStale?.({ key, ageSeconds: Math.floor(age / 1000) });
      return stale.value as T;
    }
  }

  return {
    async getOrLoad<T>(key: string, ttlMs: number, load: Load<T>, scope?: LoadScope): Promise<T> {
      // A load already running here will bring the entry: no need to ask Redis meanwhile.
      const entry = lru.get(key) ?? (loads.has(key) ? undefined : await readShared(key, scope?.signal));
      if (entry === undefined) return loadShared(key, ttlMs, load, scope);
      const age = clock.monotonic() - entry.loadedAt;
      if (age <= entry.ttlMs) {
        tell(key, 'hit', entry.loadedAt + entry.ttlMs);
        return entry.value as T;
      }
      if (age <= entry.ttlMs + swrMs) {
        tell(key, 'stale', clock.monotonic());
        loads.startInBackground(key, fill(key, ttlMs, load), (error) => options.onBackgroundError?.(key, error));
        return entry.value as T;
      }
      return loadShared(key, ttlMs, load, scope, entry);
    },
    peek<T>(key: string): T | undefined {
      const entry = lru.get(key);
      return entry !== undefined && clock.monotonic() - entry.loadedAt <= entry.ttlMs ? (entry.value as T) : undefined;
    },
    fresh<T>(key: string): T | undefined {
      const entry = lru.get(key);
      if (entry === undefined || clock.monotonic() - entry.loadedAt > entry.ttlMs) return undefined;
      tell(key, 'hit', entry.loadedAt + entry.ttlMs);
      return entry.value as T;
    },
    set<T>(key: string, value: T, ttlMs: number): void {
      lru.set(key, { value, loadedAt: clock.monotonic(), ttlMs }, { ttl: ttlMs + keepMs });
      shared.write(key, value, ttlMs);
    },
    async settled(key, maxWaitMs, signal) {
      // One look per key and poll, not one Redis command per waiting caller.
      const stillLoading = () => looks.join(key, async () => loads.has(key) || (await shared.filling(key)));
      const waited = deadline(maxWaitMs);
      while (!signal?.aborted && !waited.passed && (await stillLoading())) {
        await new Promise((resolve) => setTimeout(resolve, SETTLED_POLL_MS));
      }
      waited.cancel();
    },
    async drop(keys, kinds, everywhere) {
      let dropped = 0;
      for (const key of keys) if (lru.delete(key)) dropped += 1;
      if (kinds.length > 0) {
        for (const key of [...lru.keys()]) if (kinds.includes(kindOfKey(key)) && lru.delete(key)) dropped += 1;
      }
      if (!everywhere) return dropped;
      const there = await droppedAt(shared.drop(keys, kinds));
      if (!there.complete) throw new DropIncomplete(dropped + there.count);
      return dropped + there.count;
    },
    get size() {
      return lru.size;
    },
  };
}
