/**
 * The allow-list rule (`PERSISTED_OPERATIONS_FILE`): only listed operations run, asked for by id
 * however the client sends one. A request carrying a document is refused, so nothing can be registered.
 */
import { normalId, type PersistedOperations } from '../base/config/persisted-operations.js';
import { refusal, type Refusal } from './refusal.js';

const ID_PARAMETERS = ['documentId', 'doc_id', 'id'] as const;

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

function documentIdOf(params: PersistedParams): string | undefined {
  for (const name of ID_PARAMETERS) {
    const id = params[name];
    if (typeof id === 'string' && id !== '') return id;
  }
  return persistedHash(params.extensions);
}

/**
 * The id parameters of a GET's query string, which yoga's GET parser does not read. One given
 * twice is refused: two readers could take different ones and a URL-keyed cache would mix them.
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
