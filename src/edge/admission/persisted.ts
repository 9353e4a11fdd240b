/**
 * The allow-list rule (`PERSISTED_OPERATIONS_FILE`): only the operations of the list run, asked
 * for by id in any of the ways clients send one, read here once for every door:
 *
 * - `documentId` (the GraphQL-over-HTTP persisted documents proposal; `sha256:<hex>` or a plain id);
 * - `doc_id` or `id` (Relay's network layers, with relay-compiler's `persistConfig` ids);
 * - `extensions.persistedQuery.sha256Hash`, version 1 (Apollo Client's and urql's persisted-query links).
 *
 * The first of these present is the id. A request with a document is refused
 * (`PERSISTED_QUERY_ONLY`), whether or not it also carries an id, so nothing can be registered;
 * one without an id is `PERSISTED_QUERY_ID_REQUIRED`; an unknown id is
 * `PERSISTED_QUERY_NOT_IN_LIST`. Listed documents are still parsed and validated, limits
 * included, like any other. Over WebSocket the `query` field is required by graphql-ws, so an
 * empty one counts as none.
 */
import { normalId, type PersistedOperations } from '../../base/config/persisted-operations.js';
import { refusal, type Refusal } from './refusal.js';

/** The parameters that name a persisted document by id, in the order they are read. */
const ID_PARAMETERS = ['documentId', 'doc_id', 'id'] as const;

/** What the rule reads of a request's parameters. */
export interface PersistedParams {
  query?: unknown;
  extensions?: unknown;
  documentId?: unknown;
  doc_id?: unknown;
  id?: unknown;
}

/** The listed document a request asks for, or its refusal. */
export function allowListed({ documents }: Pick<PersistedOperations, 'documents'>, params: PersistedParams): { query: string } | Refusal {
  if (params.query) return refusal('PERSISTED_QUERY_ONLY');
  const id = documentIdOf(params);
  if (id === undefined) return refusal('PERSISTED_QUERY_ID_REQUIRED');
  const query = documents.get(normalId(id));
  return query === undefined ? refusal('PERSISTED_QUERY_NOT_IN_LIST') : { query };
}

// Private: the id a request asks for its document by (see above), else undefined.
function documentIdOf(params: PersistedParams): string | undefined {
  for (const name of ID_PARAMETERS) {
    const id = params[name];
    if (typeof id === 'string' && id !== '') return id;
  }
  return persistedHash(params.extensions);
}

/**
 * The id parameters of a GET's query string, which yoga's GET parser does not read (it keeps
 * `query`, `operationName`, `variables` and `extensions` only). One given twice is refused
 * (`BAD_REQUEST`), as two readers could take different ones: a shared cache keying on the URL
 * would keep the answer to one for requests that meant the other.
 */
export function urlIds(url: string): Pick<PersistedParams, (typeof ID_PARAMETERS)[number]> | Refusal {
  const search = new URLSearchParams(url.slice(url.indexOf('?') + 1));
  const ids: Pick<PersistedParams, (typeof ID_PARAMETERS)[number]> = {};
  for (const name of ID_PARAMETERS) {
    const given = search.getAll(name);
    if (given.length > 1) return refusal('BAD_REQUEST', `The URL parameter ${name} is given ${given.length} times; give it once`);
    if (given.length === 1) ids[name] = given[0];
  }
  return ids;
}

// Private: the hash of a well-formed version-1 `persistedQuery` extension, else undefined.
function persistedHash(extensions: unknown): string | undefined {
  const persisted = (extensions as { persistedQuery?: { version?: unknown; sha256Hash?: unknown } } | null | undefined)?.persistedQuery;
  if (persisted === null || typeof persisted !== 'object' || persisted.version !== 1) return undefined;
  return typeof persisted.sha256Hash === 'string' ? persisted.sha256Hash : undefined;
}
