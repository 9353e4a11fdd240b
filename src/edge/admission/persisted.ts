/**
 * The allow-list rule (`PERSISTED_OPERATIONS_FILE`): only the operations of the file run, asked
 * for by hash the way persisted-query clients send it (`extensions.persistedQuery`, version 1,
 * `sha256Hash`). A request with a document is refused (`PERSISTED_QUERY_ONLY`), whether or not
 * it also carries a hash, so nothing can be registered; one without a hash is
 * `PERSISTED_QUERY_ID_REQUIRED`; an unknown hash is `PERSISTED_QUERY_NOT_IN_LIST`. Listed
 * documents are still parsed and validated, limits included, like any other. Over WebSocket the
 * `query` field is required by graphql-ws, so an empty one counts as none.
 */
import type { PersistedOperations } from '../../base/config/persisted-operations.js';
import { refusal, type Refusal } from './refusal.js';

/** What the rule reads of a request's parameters. */
export interface PersistedParams {
  query?: unknown;
  extensions?: unknown;
}

/** The listed document a request asks for, or its refusal. */
export function allowListed({ documents }: PersistedOperations, params: PersistedParams): { query: string } | Refusal {
  if (params.query) return refusal('PERSISTED_QUERY_ONLY');
  const hash = persistedHash(params.extensions);
  if (hash === undefined) return refusal('PERSISTED_QUERY_ID_REQUIRED');
  const query = documents.get(hash.toLowerCase());
  return query === undefined ? refusal('PERSISTED_QUERY_NOT_IN_LIST') : { query };
}

/** The hash of a well-formed version-1 `persistedQuery` extension, else undefined. */
export function persistedHash(extensions: unknown): string | undefined {
  const persisted = (extensions as { persistedQuery?: { version?: unknown; sha256Hash?: unknown } } | null | undefined)?.persistedQuery;
  if (persisted === null || typeof persisted !== 'object' || persisted.version !== 1) return undefined;
  return typeof persisted.sha256Hash === 'string' ? persisted.sha256Hash : undefined;
}
