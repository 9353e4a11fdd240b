import { LRUCache } from 'lru-cache';
import type { Cache, Clock } from './cache.js';

export interface LruCacheOptions {
  /** Entries held before the least recently used is evicted. */
  maxEntries: number;
  /** Time source for TTLs, in ms. Default `performance`. */
  clock?: Clock;
}

// Private: lru-cache stores no null/undefined, and a cached "not found" is a null: box values.
interface Box {
  value: unknown;
}

interface LoadContext {
  load: () => Promise<unknown>;
}

/**
 * The in-process level: lru-cache's `fetch` gives TTLs per entry, LRU eviction, in-flight
 * de-duplication (one `fetchMethod` run per key at a time) and no storing of rejections.
 */
export function createLruCache(options: LruCacheOptions): Cache {
  const lru = new LRUCache<string, Box, LoadContext>({
    max: options.maxEntries,
    ...(options.clock ? { perf: options.clock } : {}),
    // Priming an entry (set) while a load for it is in flight must not fail that load's waiters.
    ignoreFetchAbort: true,
    fetchMethod: async (_key, _stale, { context }) => ({ value: await context.load() }),
  });

  return {
    async getOrLoad<T>(key: string, ttlMs: number, load: () => Promise<T>): Promise<T> {
      const box = await lru.fetch(key, { ttl: ttlMs, context: { load } });
      return box?.value as T;
    },
    peek<T>(key: string): T | undefined {
      return lru.get(key)?.value as T | undefined;
    },
    set<T>(key: string, value: T, ttlMs: number): void {
      lru.set(key, { value }, { ttl: ttlMs });
    },
    get size() {
      return lru.size;
    },
  };
}
