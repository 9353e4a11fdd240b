/**
 * Automatic persisted queries on yoga's path (the store: admission/automatic-persisted.ts): an
 * unknown hash alone is `PERSISTED_QUERY_NOT_FOUND`; a hash with its query registers it once it
 * passes validation, so the store never holds a document that cannot run; a hash that is not the
 * query's sha256 is `PERSISTED_QUERY_MISMATCH`.
 */
import type { Plugin } from 'graphql-yoga';
import { coded } from '../../base/graph-errors.js';
import {
  createPersistedQueryStore, hashMatches, persistedQueryHash, type AutomaticPersistedQueriesOptions, type PersistedQueryStore,
} from '../../admission/automatic-persisted.js';

interface Registration {
  hash: string;
  query: string;
}

/** The plugin over `store`, or over a store of its own made with these options. */
export function useAutomaticPersistedQueries(store: PersistedQueryStore | AutomaticPersistedQueriesOptions = {}): Plugin {
  const persisted = 'register' in store ? store : createPersistedQueryStore(store);
  const pending = new WeakMap<object, Registration>();
  return {
    onParams({ params, setParams, context }) {
      const hash = persistedQueryHash(params.extensions);
      if (hash === undefined) return;
      if (params.query == null) {
        const query = persisted.get(hash);
        if (query === undefined) throw coded('PERSISTED_QUERY_NOT_FOUND');
        setParams({ ...params, query });
        return;
      }
      if (!hashMatches(hash, params.query)) throw coded('PERSISTED_QUERY_MISMATCH');
      if (!persisted.has(hash)) pending.set(context, { hash, query: params.query });
    },
    onValidate({ context }) {
      const registration = pending.get(context);
      if (registration === undefined) return undefined;
      pending.delete(context);
      return ({ valid }) => {
        if (valid) persisted.register(registration.hash, registration.query);
      };
    },
  };
}
