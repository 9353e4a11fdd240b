/**
 * The cache of a replica among several: the in-process LRU level in front of a level every
 * replica shares (Redis, redis-level.ts), behind the same `Cache` interface as the LRU alone.
 *
 * - A fresh local entry answers at once: no Redis round trip on the warm path.
 * - On a local miss the shared level is read (once per key per process, however many callers
 *   miss together); what it holds is taken in with its age, so it expires here when it expires
 *   there, and freshness and stale windows are judged exactly as the LRU level judges them.
 * - A load goes through the in-process, reference-counted in-flight table first, then through
 *   the shared level's fill, which lets one replica load while the others wait for its result.
 * - `set` (lists priming entities) stores locally and writes through without waiting; `peek` is
 *   local only (it is synchronous), so callers must not take a `peek` miss for "nobody has it".
 *
 * The shared level never throws a Redis failure: when Redis is down, this is the LRU level.
 */
import { LRUCache } from 'lru-cache';
import { kindOfKey, type Cache, type LoadScope, type LookupResult } from './cache.js';
import { createInFlight } from './in-flight.js';
import type { LruCacheOptions } from './lru-cache.js';

/** An entry of the shared level, as a replica sees it. */
export interface SharedEntry {
  value: unknown;
  /** Time since it was loaded (by any replica), in ms. */
  ageMs: number;
  ttlMs: number;
}

/** What the tiered cache needs of the shared level. None of these rejects on a level failure. */
export interface SharedLevel {
  /** The entry stored under `key`, if any and readable. */
  read(key: string): Promise<SharedEntry | undefined>;
  /** A fresh entry: loaded with `load` (and stored), or the one another replica loaded meanwhile. */
  fill(key: string, ttlMs: number, load: (signal: AbortSignal) => Promise<unknown>, signal: AbortSignal): Promise<SharedEntry>;
  /** Stores `value` without waiting. */
  write(key: string, value: unknown, ttlMs: number): void;
}

export interface TieredCacheOptions extends LruCacheOptions {
  shared: SharedLevel;
}

interface Entry {
  value: unknown;
  /** On this process's clock: the shared load time, moved by the entry's age. */
  loadedAt: number;
  ttlMs: number;
}

type Load<T> = (signal: AbortSignal) => Promise<T>;

export function createTieredCache(options: TieredCacheOptions): Cache {
  const { shared } = options;
  const clock = options.clock ?? performance;
  const swrMs = options.staleWhileRevalidateMs ?? 0;
  const sieMs = options.staleIfErrorMs ?? 0;
  const keepMs = Math.max(swrMs, sieMs);
  const lru = new LRUCache<string, Entry>({ max: options.maxEntries, perf: clock });
  const reads = createInFlight();
  const loads = createInFlight();
  const tell = (key: string, result: LookupResult, expiresAt: number) =>
    options.observer?.onLookup?.(kindOfKey(key), result, expiresAt);

  // Keeps an entry here for what is left of its TTL and stale window; none left: not kept.
  function takeIn(key: string, { value, ageMs, ttlMs }: SharedEntry): Entry | undefined {
    const leftMs = ttlMs + keepMs - ageMs;
    if (leftMs <= 0) return undefined;
    const entry = { value, loadedAt: clock.now() - ageMs, ttlMs };
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
    return takeIn(key, entry) ?? { value: entry.value, loadedAt: clock.now() - entry.ageMs, ttlMs: entry.ttlMs };
  };

  // A load shared by this process's callers and, through the fill, by the replicas. When it
  // fails, `stale` (if any) is served while within the stale-if-error window.
  async function loadShared<T>(key: string, ttlMs: number, load: Load<T>, scope?: LoadScope, stale?: Entry): Promise<T> {
    try {
      const entry = await loads.join(key, fill(key, ttlMs, load), scope?.signal);
      tell(key, 'miss', entry.loadedAt + entry.ttlMs);
      return entry.value as T;
    } catch (error) {
      const age = stale === undefined ? Infinity : clock.now() - stale.loadedAt;
      if (stale === undefined || age > stale.ttlMs + sieMs) {
        tell(key, 'miss', clock.now());
        throw error;
      }
      tell(key, 'stale', clock.now());
      scope?.onStale?.({ key, ageSeconds: Math.floor(age / 1000) });
      return stale.value as T;
    }
  }

  return {
    async getOrLoad<T>(key: string, ttlMs: number, load: Load<T>, scope?: LoadScope): Promise<T> {
      // A load already running here will bring the entry: no need to ask Redis meanwhile.
      const entry = lru.get(key) ?? (loads.has(key) ? undefined : await readShared(key, scope?.signal));
      if (entry === undefined) return loadShared(key, ttlMs, load, scope);
      const age = clock.now() - entry.loadedAt;
      if (age <= entry.ttlMs) {
        tell(key, 'hit', entry.loadedAt + entry.ttlMs);
        return entry.value as T;
      }
      if (age <= entry.ttlMs + swrMs) {
        tell(key, 'stale', clock.now());
        loads.startInBackground(key, fill(key, ttlMs, load), (error) => options.onBackgroundError?.(key, error));
        return entry.value as T;
      }
      return loadShared(key, ttlMs, load, scope, entry);
    },
    peek<T>(key: string): T | undefined {
      const entry = lru.get(key);
      return entry !== undefined && clock.now() - entry.loadedAt <= entry.ttlMs ? (entry.value as T) : undefined;
    },
    set<T>(key: string, value: T, ttlMs: number): void {
      lru.set(key, { value, loadedAt: clock.now(), ttlMs }, { ttl: ttlMs + keepMs });
      shared.write(key, value, ttlMs);
    },
    get size() {
      return lru.size;
    },
  };
}
