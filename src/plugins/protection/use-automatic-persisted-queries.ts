/**
 * Automatic persisted queries (`extensions.persistedQuery`): an unknown hash alone is
 * `PERSISTED_QUERY_NOT_FOUND`; a hash with its query registers it once it passes validation, so
 * the store never holds a document that cannot run; a hash that is not the query's sha256 is
 * `PERSISTED_QUERY_MISMATCH`. The store is an LRU bounded in entries and characters.
 */
import type { Plugin } from 'graphql-yoga';
import { coded } from '../../base/graph-errors.js';
import { LRUCache } from 'lru-cache';
import { sha256Hex } from '../../base/config/persisted-operations.js';

export interface AutomaticPersistedQueriesOptions {
  /** Documents kept at most. Default 1000. */
  maxEntries?: number;
  /** Characters kept at most, all documents together; a longer document is run, not kept. Default 4 Mi. */
  maxChars?: number;
}

interface Registration {
  hash: string;
  query: string;
}

export function useAutomaticPersistedQueries(options: AutomaticPersistedQueriesOptions = {}): Plugin {
  const store = new LRUCache<string, string>({
    max: options.maxEntries ?? 1000,
    maxSize: options.maxChars ?? 4 * 1024 * 1024,
    sizeCalculation: (query) => Math.max(1, query.length),
  });
  const pending = new WeakMap<object, Registration>();
  return {
    onParams({ params, setParams, context }) {
      const hash = persistedQueryHash(params.extensions);
      if (hash === undefined) return;
      if (params.query == null) {
        const query = store.get(hash);
        if (query === undefined) throw coded('PERSISTED_QUERY_NOT_FOUND');
        setParams({ ...params, query });
        return;
      }
      if (sha256Hex(params.query) !== hash) throw coded('PERSISTED_QUERY_MISMATCH');
      if (!store.has(hash)) pending.set(context, { hash, query: params.query });
    },
    onValidate({ context }) {
      const registration = pending.get(context);
      if (registration === undefined) return undefined;
      pending.delete(context);
      return ({ valid }) => {
        if (valid) store.set(registration.hash, registration.query);
      };
    },
  };
}

// Private: the hash of a well-formed version-1 extension; anything else is not APQ.
function persistedQueryHash(extensions: Record<string, unknown> | undefined): string | undefined {
  const persisted = extensions?.persistedQuery as { version?: unknown; sha256Hash?: unknown } | undefined;
  if (persisted?.version !== 1 || typeof persisted.sha256Hash !== 'string') return undefined;
  return persisted.sha256Hash.toLowerCase();
}

