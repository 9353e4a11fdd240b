import { LRUCache } from 'lru-cache';
import { kindOfKey, type Cache, type CacheObserver, type Clock, type LoadScope, type LookupResult } from './cache.js';
import { createInFlight } from './in-flight.js';

export interface LruCacheOptions {
  /** Entries held before the least recently used is evicted. */
  maxEntries: number;
  /** How long past its TTL an entry is served at once while it is refreshed in the background, in ms. Default 0. */
  staleWhileRevalidateMs?: number;
  /** How long past its TTL an entry is served when its refresh fails, in ms. Default 0. */
  staleIfErrorMs?: number;
  /** Time source for TTLs, in ms. Default `performance`. */
  clock?: Clock;
  /** Told of a failed background refresh (it never reaches a caller, and never kills the process). */
  onBackgroundError?(key: string, error: unknown): void;
  /** Told how each `getOrLoad` was answered (metrics). Default: none. */
  observer?: CacheObserver;
}

interface Entry {
  value: unknown;
  loadedAt: number;
  ttlMs: number;
}

/**
 * The in-process level: lru-cache holds entries (bounded in number, least recently used out)
 * for their TTL plus the longer stale window; freshness is judged here against each entry's
 * load time, and loads go through the shared, reference-counted in-flight table.
 */
export function createLruCache(options: LruCacheOptions): Cache {
  const clock = options.clock ?? performance;
  const swrMs = options.staleWhileRevalidateMs ?? 0;
  const sieMs = options.staleIfErrorMs ?? 0;
  const lru = new LRUCache<string, Entry>({ max: options.maxEntries, perf: clock });
  const inFlight = createInFlight();
  const tell = (key: string, result: LookupResult, expiresAt: number) =>
    options.observer?.onLookup?.(kindOfKey(key), result, expiresAt);

  const store = (key: string, value: unknown, ttlMs: number) =>
    lru.set(key, { value, loadedAt: clock.now(), ttlMs }, { ttl: ttlMs + Math.max(swrMs, sieMs) });

  function loadAndStore<T>(key: string, ttlMs: number, load: (signal: AbortSignal) => Promise<T>) {
    return async (signal: AbortSignal) => {
      const value = await load(signal);
      store(key, value, ttlMs);
      return value;
    };
  }

  async function refreshOrStale<T>(key: string, entry: Entry, ttlMs: number, load: (signal: AbortSignal) => Promise<T>, scope?: LoadScope) {
    try {
      const value = await inFlight.join(key, loadAndStore(key, ttlMs, load), scope?.signal);
      tell(key, 'miss', clock.now() + ttlMs);
      return value;
    } catch (error) {
      const age = clock.now() - entry.loadedAt;
      if (age > entry.ttlMs + sieMs) {
        tell(key, 'miss', clock.now());
        throw error;
      }
      tell(key, 'stale', clock.now());
      scope?.onStale?.({ key, ageSeconds: Math.floor(age / 1000) });
      return entry.value as T;
    }
  }

  return {
    async getOrLoad<T>(key: string, ttlMs: number, load: (signal: AbortSignal) => Promise<T>, scope?: LoadScope): Promise<T> {
      const entry = lru.get(key);
      if (entry === undefined) {
        tell(key, 'miss', clock.now() + ttlMs);
        return inFlight.join(key, loadAndStore(key, ttlMs, load), scope?.signal);
      }
      const age = clock.now() - entry.loadedAt;
      if (age <= entry.ttlMs) {
        tell(key, 'hit', entry.loadedAt + entry.ttlMs);
        return entry.value as T;
      }
      if (age <= entry.ttlMs + swrMs) {
        tell(key, 'stale', clock.now());
        inFlight.startInBackground(key, loadAndStore(key, ttlMs, load), (error) => options.onBackgroundError?.(key, error));
        return entry.value as T;
      }
      return refreshOrStale(key, entry, ttlMs, load, scope);
    },
    peek<T>(key: string): T | undefined {
      const entry = lru.get(key);
      return entry !== undefined && clock.now() - entry.loadedAt <= entry.ttlMs ? (entry.value as T) : undefined;
    },
    set<T>(key: string, value: T, ttlMs: number): void {
      store(key, value, ttlMs);
    },
    get size() {
      return lru.size;
    },
  };
}
