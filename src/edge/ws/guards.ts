/**
 * What the WebSocket transport checks before any GraphQL runs, as the HTTP path checks it: the
 * API key of a connection (use-api-keys.ts), and the document of an operation (the persisted
 * operations' allow-list, use-persisted-operations.ts, and the parameter limits,
 * use-parameter-limits.ts). Refusals carry the codes HTTP gives them.
 */
import type { IncomingMessage } from 'node:http';
import { GraphQLError } from 'graphql';
import type { SubscribePayload } from 'graphql-ws';
import type { Config } from '../../base/config/config.js';
import { createApiKeyMatcher, type HeaderReader } from '../../plugins/protection/use-api-keys.js';
import { parametersTooLarge } from '../../plugins/protection/use-parameter-limits.js';

/** What the WebSocket transport reads of the configuration. */
export type WebSocketConfig = Pick<Config, 'apiKeys' | 'maxQueryBytes' | 'maxVariablesBytes' | 'persistedOperations' | 'maxRequestBodyBytes' | 'webSocket'>;

/** A connection's client (`key:<fingerprint>`, undefined without keys), or why it is refused. */
export type ConnectionVerdict = { client: string | undefined } | { refused: string };

/**
 * The key check of a connection (`GATEWAY_API_KEYS`): the key from the upgrade request's headers
 * or from `connectionParams` (a browser's WebSocket cannot set headers), named as over HTTP
 * (`x-api-key`, or `authorization: Bearer <key>`; in `connectionParams`, in any case).
 */
export function createConnectionCheck(keys: readonly string[]): (request: IncomingMessage, connectionParams: unknown) => ConnectionVerdict {
  if (keys.length === 0) return () => ({ client: undefined });
  const clientOf = createApiKeyMatcher(keys);
  return (request, connectionParams) => {
    const sources = [upgradeHeaders(request), paramsHeaders(connectionParams)];
    for (const headers of sources) {
      const client = clientOf(headers);
      if (client !== undefined) return { client };
    }
    return { refused: sources.some(presentsKey) ? 'The API key is not valid' : 'An API key is required' };
  };
}

/**
 * The document an operation runs, or its refusal: the payload's own; in allow-list mode
 * (`PERSISTED_OPERATIONS_FILE`) the listed one its hash names (`extensions.persistedQuery.sha256Hash`,
 * with an empty `query`: graphql-ws requires the field); then the parameter limits.
 */
export function admittedQuery(payload: SubscribePayload, config: WebSocketConfig): string | GraphQLError {
  let query = payload.query;
  const allowList = config.persistedOperations;
  if (allowList !== undefined) {
    const only = 'Only persisted operations may run here; send the hash of a listed one.';
    if (query !== '') return coded(only, 'PERSISTED_QUERY_ONLY');
    const hash = (payload.extensions?.persistedQuery as { sha256Hash?: unknown } | undefined)?.sha256Hash;
    if (typeof hash !== 'string') return coded(only, 'PERSISTED_QUERY_ID_REQUIRED');
    const listed = allowList.documents.get(hash.toLowerCase());
    if (listed === undefined) return coded('The operation is not in the persisted operations list.', 'PERSISTED_QUERY_NOT_IN_LIST');
    query = listed;
  }
  if (parametersTooLarge(config, query, undefined)) return coded(`The query exceeds ${config.maxQueryBytes} bytes`, 'QUERY_TOO_LARGE');
  if (parametersTooLarge(config, undefined, payload.variables)) return coded(`The variables exceed ${config.maxVariablesBytes} bytes`, 'VARIABLES_TOO_LARGE');
  return query;
}

/** An expected refusal: a message for the client and a stable code. */
export function coded(message: string, code: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code } });
}

/** The upgrade request's headers, as the key check reads them (a header given twice counts as none). */
export function upgradeHeaders(request: IncomingMessage): HeaderReader {
  return {
    get(name) {
      const value = request.headers[name];
      return typeof value === 'string' ? value : null;
    },
  };
}

// Private: `connectionParams` read as headers, names in any case.
function paramsHeaders(params: unknown): HeaderReader {
  const entries = params !== null && typeof params === 'object' ? Object.entries(params) : [];
  return {
    get(name) {
      for (const [key, value] of entries) if (key.toLowerCase() === name && typeof value === 'string') return value;
      return null;
    },
  };
}

function presentsKey(headers: HeaderReader): boolean {
  return Boolean(headers.get('x-api-key')?.trim() || headers.get('authorization')?.trim());
}
