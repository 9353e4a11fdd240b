/** The cache the loaders see (lru-cache.ts). Values may be `null` (a cached "not found"); errors are never stored. */
export interface Cache {
  /**
   * The value for `key`: stored if fresh or within stale-while-revalidate (then refreshed), else
   * `load`ed once for all callers, or stale within stale-if-error if that fails. An aborted
   * `scope.signal` rejects at once; the load aborts when nobody waits.
   */
  getOrLoad<T>(key: string, ttlMs: number, load: (signal: AbortSignal) => Promise<T>, scope?: LoadScope): Promise<T>;
  /** The stored value while fresh, else `undefined`. Never loads. */
  peek<T>(key: string): T | undefined;
  /** Like `peek`, but counted as a hit as `getOrLoad` counts one; a miss counts nothing. */
  fresh<T>(key: string): T | undefined;
  /** Stores `value` for `ttlMs` (lists prime the entities they carry). */
  set<T>(key: string, value: T, ttlMs: number): void;
  /** Resolves once no replica loads `key`, `signal` aborts or `maxWaitMs` passes. Never rejects. */
  settled(key: string, maxWaitMs: number, signal?: AbortSignal): Promise<void>;
  /** Drops `keys` and `kinds` here and, with `shared`, in Redis; resolves the count or rejects with `DropIncomplete`. */
  drop(keys: readonly string[], kinds: readonly string[], shared: boolean): Promise<number>;
  /** Entries held now. */
  readonly size: number;
}

/** How a `getOrLoad` was answered: `hit` (fresh), `stale` (past its TTL), `miss` (loaded or joined a load). */
export type LookupResult = 'hit' | 'miss' | 'stale';

/** Watches the cache (metrics); hooks are called synchronously and must not throw. */
export interface CacheObserver {
  /** One call per `getOrLoad`: the key's kind, the result, and when the value stops being fresh (monotonic ms). */
  onLookup?(kind: string, result: LookupResult, expiresAt: number): void;
}

/** The kind of data a key names: its prefix up to the first `:` (the whole key without one). */
export function kindOfKey(key: string): string {
  const colon = key.indexOf(':');
  return colon === -1 ? key : key.slice(0, colon);
}

/** One caller's side of a load. */
export interface LoadScope {
  /** Aborts when the caller gives up. */
  signal?: AbortSignal;
  /** Called when a stale value is served because its refresh failed. */
  onStale?(serve: StaleServe): void;
  /** Called with the age, in whole seconds, of data served from the catalog index. */
  onDataAge?(ageSeconds: number): void;
}

/** A stale value served in place of a failed refresh. */
export interface StaleServe {
  /** The cache key (e.g. `site:S000001`). */
  key: string;
  /** Time since the value was loaded, in whole seconds. */
  ageSeconds: number;
}

/** A drop that Redis failed part of; `dropped` counts what did go. */
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
