/**
 * The shared cache, as the loaders see it: a key-value store with a TTL per entry, in-flight
 * de-duplication, stale serving and cancellation. The in-process LRU level (lru-cache.ts)
 * implements it, alone or (with REDIS_URL) in front of a level the replicas share.
 *
 * Values may be `null` (a cached "not found"); errors are never stored.
 */
export interface Cache {
  /**
   * The value for `key`:
   * - fresh (younger than `ttlMs`): the stored value;
   * - within the stale-while-revalidate window past `ttlMs`: the stored value at once, while one
   *   background load refreshes it;
   * - otherwise: the result of `load`, stored for `ttlMs`. Concurrent callers share one load.
   *   If that load fails and the stored value is within the stale-if-error window, the stored
   *   value is served and `scope.onStale` is told; past it, the error goes through.
   *
   * A caller whose `scope.signal` aborts stops waiting at once (rejected with the signal's
   * reason); the shared load is aborted (through the signal given to `load`) when no caller
   * waits for it any more.
   */
  getOrLoad<T>(key: string, ttlMs: number, load: (signal: AbortSignal) => Promise<T>, scope?: LoadScope): Promise<T>;
  /** The stored value while fresh, else `undefined`. Never loads. */
  peek<T>(key: string): T | undefined;
  /**
   * The stored value while fresh, counted as a hit exactly as `getOrLoad` counts one (the
   * request's record, its expiry); else `undefined`, and nothing counted: ask `getOrLoad`.
   * Synchronous: a resolver answers such a value without a promise.
   */
  fresh<T>(key: string): T | undefined;
  /** Stores `value` for `ttlMs` (lists use it to prime the entities they carry). */
  set<T>(key: string, value: T, ttlMs: number): void;
  /**
   * Resolves once `key` is not being loaded, here or by another replica (its fill lock is held):
   * at once when it is not, else when the load ends, `signal` aborts, or after `maxWaitMs`.
   * Never loads, never rejects.
   */
  settled(key: string, maxWaitMs: number, signal?: AbortSignal): Promise<void>;
  /**
   * Drops the entries under `keys` and every entry whose kind (`kindOfKey`) is in `kinds`: here,
   * and with `shared` in the level the replicas share too (a purge: response-cache/purge.ts). Resolves how
   * many copies it dropped: this process's, and the shared level's. A load in flight is not
   * stopped: it stores what it brings. Rejects with a `DropIncomplete` when Redis failed a command
   * of it (what it could drop is dropped all the same).
   */
  drop(keys: readonly string[], kinds: readonly string[], shared: boolean): Promise<number>;
  /** Entries held now (metrics, tests). */
  readonly size: number;
}

/**
 * How a `getOrLoad` was answered: `hit` (fresh), `stale` (past its TTL: served while it is
 * revalidated, or because its refresh failed), `miss` (loaded, or joined a load in flight).
 */
export type LookupResult = 'hit' | 'miss' | 'stale';

/** Watches the cache (metrics); hooks are called synchronously and must not throw. */
export interface CacheObserver {
  /**
   * One call per `getOrLoad`, once its result is known. `kind` is the key's prefix up to the
   * first `:` (`site` for `site:S000001`, `products` for `products:1:50`), a bounded set.
   * `expiresAt` is when the value served stops being fresh, on the monotonic clock (ms, base/clock.ts).
   */
  onLookup?(kind: string, result: LookupResult, expiresAt: number): void;
}

/** The kind of data a key names: its prefix up to the first `:` (the whole key without one). */
export function kindOfKey(key: string): string {
  const colon = key.indexOf(':');
  return colon === -1 ? key : key.slice(0, colon);
}

/** One caller's side of a load. */
export interface LoadScope {
  /** Aborts when the caller gives up (its request's deadline passed, or its client left). */
  signal?: AbortSignal;
  /** Called when a stale value is served because its refresh failed (stale-if-error). */
  onStale?(serve: StaleServe): void;
  /** Called with the age, in whole seconds, of data served from the catalog index. */
  onDataAge?(ageSeconds: number): void;
}

/** A stale value served in place of a failed refresh. */
export interface StaleServe {
  /** The cache key, naming the upstream data (e.g. `site:S000001`, `products:1:50`). */
  key: string;
  /** Time since the value was loaded, in whole seconds. */
  ageSeconds: number;
}

/**
 * A purge's drop that Redis failed part of: the copies there may outlive it (until their TTL).
 * `dropped` counts what did go, here and there. No GraphQL here: response-cache/purge.ts turns it
 * into `PURGE_INCOMPLETE`.
 */
export class DropIncomplete extends Error {
  override name = 'DropIncomplete';
  constructor(readonly dropped: number) {
    super(`Redis failed part of a purge (${dropped} copies dropped)`);
  }
}

/** What a drop that may be incomplete dropped, and whether it went everywhere it should. */
export async function dropped(drop: Promise<number>): Promise<{ count: number; complete: boolean }> {
  try {
    return { count: await drop, complete: true };
  } catch (error) {
    if (error instanceof DropIncomplete) return { count: error.dropped, complete: false };
    throw error;
  }
}
