/**
 * The shared cache, as the loaders see it: a key-value store with a TTL per entry and in-flight
 * de-duplication. The in-process LRU level (lru-cache.ts) implements it today; a shared second
 * level (Redis) can sit behind the same interface later without touching loaders or resolvers.
 *
 * Values may be `null` (a cached "not found"); errors are never stored.
 */
export interface Cache {
  /**
   * The value for `key`: the stored one while fresh; else the result of `load`, stored for
   * `ttlMs`. Concurrent calls for the same key while a load is in flight share that one load.
   * A rejected load is not stored: the next call loads again.
   */
  getOrLoad<T>(key: string, ttlMs: number, load: () => Promise<T>): Promise<T>;
  /** The stored value while fresh, else `undefined`. Never loads. */
  peek<T>(key: string): T | undefined;
  /** Stores `value` for `ttlMs` (lists use it to prime the entities they carry). */
  set<T>(key: string, value: T, ttlMs: number): void;
  /** Entries held now (metrics, tests). */
  readonly size: number;
}

/** Time source in ms, injectable so TTL tests need no sleeping or fake global timers. */
export interface Clock {
  now(): number;
}
