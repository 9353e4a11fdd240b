/**
 * The automatic persisted queries' store (`extensions.persistedQuery`), one for every door: an
 * LRU bounded in entries and characters, holding only documents that passed validation.
 */
import { LRUCache } from 'lru-cache';
import { sha256Hex } from '../base/config/persisted-operations.js';

export interface AutomaticPersistedQueriesOptions {
  /** Documents kept at most. Default 1000. */
  maxEntries?: number;
  /** Characters kept at most, all documents together; a longer document is run, not kept. Default 4 Mi. */
  maxChars?: number;
}

export interface PersistedQueryStore {
  /** The query registered under `hash` (made the most recently used). */
  get(hash: string): string | undefined;
  /** Whether `hash` is registered (its place left as it is). */
  has(hash: string): boolean;
  /** Keeps `query` under `hash` once it validated (a known hash is left as it is). */
  register(hash: string, query: string): void;
}

export function createPersistedQueryStore(options: AutomaticPersistedQueriesOptions = {}): PersistedQueryStore {
  const store = new LRUCache<string, string>({
    max: options.maxEntries ?? 1000,
    maxSize: options.maxChars ?? 4 * 1024 * 1024,
    sizeCalculation: (query) => Math.max(1, query.length),
  });
  return {
    get: (hash) => store.get(hash),
    has: (hash) => store.has(hash),
    register(hash, query) {
      if (!store.has(hash)) store.set(hash, query);
    },
  };
}

/** The hash of a well-formed version-1 extension, lower case; anything else is not APQ. */
export function persistedQueryHash(extensions: unknown): string | undefined {
  const persisted = (extensions as { persistedQuery?: { version?: unknown; sha256Hash?: unknown } } | null | undefined)?.persistedQuery;
  if (persisted?.version !== 1 || typeof persisted.sha256Hash !== 'string') return undefined;
  return persisted.sha256Hash.toLowerCase();
}

/** Whether `query` is the document `hash` names. */
export function hashMatches(hash: string, query: string): boolean {
  return sha256Hex(query) === hash;
}
