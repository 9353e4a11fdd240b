/**
 * Allow-list mode (`PERSISTED_OPERATIONS_FILE`): only the operations of the file run, asked for
 * by hash the way persisted-query clients send it (`extensions.persistedQuery.sha256Hash`). A
 * request with a document is refused (`PERSISTED_QUERY_ONLY`), whether or not it also carries a
 * hash, so nothing can be registered; an unknown hash is `PERSISTED_QUERY_NOT_IN_LIST`. Listed
 * documents are still parsed and validated, limits included, like any other.
 */
import { usePersistedOperations } from '@graphql-yoga/plugin-persisted-operations';
import type { Plugin } from 'graphql-yoga';
import type { PersistedOperations } from '../../base/config/persisted-operations.js';

export function useAllowList({ documents }: PersistedOperations): Plugin {
  return usePersistedOperations({
    getPersistedOperation: (hash) => documents.get(hash.toLowerCase()) ?? null,
    allowArbitraryOperations: false,
    customErrors: {
      notFound: refusal('The operation is not in the persisted operations list.', 'PERSISTED_QUERY_NOT_IN_LIST', 404),
      persistedQueryOnly: refusal('Only persisted operations may run here; send the hash of a listed one.', 'PERSISTED_QUERY_ONLY', 400),
      keyNotFound: refusal('Only persisted operations may run here; send the hash of a listed one.', 'PERSISTED_QUERY_ID_REQUIRED', 400),
    },
  });
}

function refusal(message: string, code: string, status: number) {
  return { message, extensions: { code, http: { status } } };
}
