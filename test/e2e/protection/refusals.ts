/**
 * The table of refusals: each request a gateway must refuse, the environment it is refused in,
 * and the code and status it is refused with. doors.test.ts sends each row through every door and
 * expects the same code.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sha256Hex } from '../../../src/base/config/persisted-operations.js';
import type { RawRequest } from '../http/exchange.js';

export const HTTP_KEY = 'door-test-http-key-0001';
export const WS_KEY = 'door-test-socket-key-0002';
const KEYS = { GATEWAY_API_KEYS: `${HTTP_KEY},${WS_KEY}` };
export const CITIES = '{ cities { total } }';
const LISTED = '{ cities { items { name } } }';

const dir = mkdtempSync(join(tmpdir(), 'vending-graph-doors-'));
const listFile = join(dir, 'list.json');
writeFileSync(listFile, JSON.stringify({ [sha256Hex(LISTED)]: LISTED }));

/** Removes the allow-list file the `list` environment reads. */
export const removeListFile = () => rmSync(dir, { recursive: true, force: true });

/** The gateways' settings, by name: rows that need another than `main` name theirs. */
export const ENVS: Record<string, Record<string, string>> = {
  main: { ...KEYS, CSRF_PREVENTION: 'true', INTROSPECTION: 'false', MAX_QUERY_BYTES: '1024', MAX_VARIABLES_BYTES: '1024' },
  rate: { ...KEYS, RATE_LIMIT_PER_MINUTE: '2' },
  // The subscriptions' table spends a budget of its own.
  rateLive: { ...KEYS, RATE_LIMIT_PER_MINUTE: '2' },
  cost: { ...KEYS, MAX_QUERY_COST: '4' },
  budget: { ...KEYS, MAX_UPSTREAM_CALLS_PER_OPERATION: '1' },
  list: { ...KEYS, PERSISTED_OPERATIONS_FILE: listFile, MAX_QUERY_BYTES: '1024' },
};

export interface Params {
  query: string;
  variables?: Record<string, unknown>;
  extensions?: Record<string, unknown>;
  /** A persisted document's id (GraphQL over HTTP's persisted documents proposal). */
  documentId?: string;
}

export interface Row {
  name: string;
  env?: keyof typeof ENVS;
  params: Params;
  code: string;
  /** The HTTP status on both HTTP doors. */
  status: number;
  /** The key sent (default: a valid one); null for none. */
  key?: string | null;
  /**
   * Requests sent first, all answered, to spend the rate limit's budget, over HTTP and over
   * WebSocket (whose upgrade counts for its address: the key comes later, in `connectionParams`).
   */
  spend?: { http: number; ws: number };
  /**
   * WebSocket: the code in an `error` or `next` message, or a close (the key is checked once, at
   * `connection_init`), or the plain HTTP refusal of an upgrade to `upgrade` (a path).
   */
  ws?: { close: number } | { upgrade: string } | { na: string };
  /**
   * GET (the query in the URL, with a CSRF header), when it is not refused as the POST is: why the
   * row has no GET form, or what GraphQL over HTTP answers instead, and why.
   */
  get?: { na: string } | { status: number; code: string; why: string };
  /** An HTTP request other than a JSON POST to the endpoint (CSRF's simple request, another path or media type). */
  http?: { method?: 'GET'; path?: string; contentType?: string };
  /** The HTTP answer's headers that must be there, the same on both doors. */
  headers?: string[];
}

const deep = '{ sites(pageSize: 1) { items { points { site { points { site { code } } } } } } }';
const aliases = `{ ${Array.from({ length: 16 }, (_, i) => `a${i}: cities(pageSize: 1) { total }`).join(' ')} }`;
export const hashOf = (query: string) => ({ persistedQuery: { version: 1, sha256Hash: sha256Hex(query) } });

export const ROWS: Row[] = [
  {
    name: 'another path routed as GraphQL', params: { query: CITIES }, http: { path: '/x/graphql' }, code: 'NOT_FOUND', status: 404, ws: { upgrade: '/x/graphql' },
    get: { na: 'with the query in the URL, the URL no longer ends with the endpoint: yoga does not route it as GraphQL at all (a plain 404; nothing runs)' },
  },
  {
    name: 'a body of a media type not read', params: { query: CITIES }, http: { contentType: 'application/xml' }, code: 'UNSUPPORTED_MEDIA_TYPE', status: 415, headers: ['accept'], ws: { na: 'graphql-ws messages are JSON text frames: there is no media type to choose' },
    get: { na: 'a GET has no body' },
  },
  { name: 'no API key', key: null, params: { query: CITIES }, code: 'UNAUTHENTICATED', status: 401, ws: { close: 4403 }, headers: ['www-authenticate'] },
  { name: 'a wrong API key', key: 'not-a-key-of-this-gateway', params: { query: CITIES }, code: 'UNAUTHENTICATED', status: 401, ws: { close: 4403 }, headers: ['www-authenticate'] },
  { name: 'over the rate limit', env: 'rate', spend: { http: 2, ws: 2 }, params: { query: CITIES }, code: 'RATE_LIMITED', status: 429, headers: ['retry-after'] },
  { name: 'a query over MAX_QUERY_BYTES', params: { query: `${'#'.repeat(1100)}\n${CITIES}` }, code: 'QUERY_TOO_LARGE', status: 413 },
  { name: 'variables over MAX_VARIABLES_BYTES', params: { query: CITIES, variables: { junk: 'x'.repeat(1100) } }, code: 'VARIABLES_TOO_LARGE', status: 413 },
  { name: 'a syntax error', params: { query: '{ cities { ' }, code: 'GRAPHQL_PARSE_FAILED', status: 400 },
  { name: 'an unknown field', params: { query: '{ nope }' }, code: 'GRAPHQL_VALIDATION_FAILED', status: 400 },
  {
    name: 'a mutation', params: { query: 'mutation { __typename }' }, code: 'GRAPHQL_VALIDATION_FAILED', status: 400,
    get: { status: 405, code: 'BAD_REQUEST', why: 'GraphQL over HTTP refuses any mutation sent as a GET with 405, before validation' },
  },
  { name: 'too deep', params: { query: deep }, code: 'DEPTH_LIMIT_EXCEEDED', status: 400 },
  { name: 'too many aliases', params: { query: aliases }, code: 'ALIAS_LIMIT_EXCEEDED', status: 400 },
  { name: 'too costly', env: 'cost', params: { query: '{ cities(pageSize: 1) { total page } }' }, code: 'COST_LIMIT_EXCEEDED', status: 400 },
  { name: 'introspection, disabled', params: { query: '{ __schema { types { name } } }' }, code: 'INTROSPECTION_DISABLED', status: 400 },
  { name: 'a bad argument', params: { query: '{ cities(page: 0) { total } }' }, code: 'BAD_USER_INPUT', status: 200 },
  { name: 'over the item limit', params: { query: '{ searchProducts(first: 100) { availability(first: 1000) { stock } } }' }, code: 'ITEM_LIMIT_EXCEEDED', status: 200 },
  { name: 'over the upstream budget', env: 'budget', params: { query: '{ sites(pageSize: 100) { items { code points { cargoLanes { stock product { productName } } } } } }' }, code: 'UPSTREAM_BUDGET_EXCEEDED', status: 200 },
  ...([
    ['a document in allow-list mode', { query: CITIES }, 'PERSISTED_QUERY_ONLY', 400],
    ['a hash not in the list', { query: '', extensions: hashOf(CITIES) }, 'PERSISTED_QUERY_NOT_IN_LIST', 404],
    ['neither document nor hash in allow-list mode', { query: '' }, 'PERSISTED_QUERY_ID_REQUIRED', 400],
    ['a documentId not in the list', { query: '', documentId: `sha256:${sha256Hex(CITIES)}` }, 'PERSISTED_QUERY_NOT_IN_LIST', 404],
    ['a document beside a listed documentId', { query: CITIES, documentId: sha256Hex(LISTED) }, 'PERSISTED_QUERY_ONLY', 400],
    // The doors disagreed on these two before they shared the rule (WebSocket ran the listed
    // document of a hash without `version: 1`, and refused a long document as not persisted).
    ['a listed hash without version 1', { query: '', extensions: { persistedQuery: { sha256Hash: sha256Hex(LISTED) } } }, 'PERSISTED_QUERY_ID_REQUIRED', 400],
    ['a document over MAX_QUERY_BYTES in allow-list mode', { query: `${'#'.repeat(1100)}\n${CITIES}` }, 'QUERY_TOO_LARGE', 413],
  ] as const).map(([name, params, code, status]): Row => ({
    name, env: 'list', params, code, status,
  })),
  {
    name: 'a GET without a CSRF header', params: { query: CITIES }, http: { method: 'GET' }, code: 'CSRF_HEADER_REQUIRED', status: 403,
    ws: { na: 'a WebSocket has no simple request, and no client is known by a cookie (doors/ws/websocket.ts)' },
    get: { na: 'the row is itself a GET, without the header; the GET door sends one' },
  },
];

/** The row's HTTP request, sent with `key` (none if null); an empty query is left out, as GraphQL over HTTP has none. */
export function requestOf(row: Row, key: string | null): RawRequest & { path: string; headers: Record<string, string> } {
  const { query, ...rest } = row.params;
  const params = { ...(query === '' ? {} : { query }), ...rest };
  const headers: Record<string, string> = { accept: 'application/graphql-response+json', ...(key !== null && { 'x-api-key': key }) };
  const path = row.http?.path ?? '/graphql';
  if (row.http?.method === 'GET') return { method: 'GET', path: `${path}?${new URLSearchParams({ query })}`, headers };
  return { method: 'POST', path, headers: { ...headers, 'content-type': row.http?.contentType ?? 'application/json' }, body: JSON.stringify(params) };
}

/**
 * The row's request as a GET on its path: its parameters in the URL (variables and extensions as
 * JSON, as GraphQL over HTTP has them), with a CSRF header, as a client that reads GraphQL over
 * GET sends it (Apollo's and urql's persisted queries, a CDN-cached query).
 */
export function getRequestOf(row: Row, key: string | null): { path: string; headers: Record<string, string> } {
  const { query, variables, extensions, documentId } = row.params;
  const search = new URLSearchParams({
    ...(query === '' ? {} : { query }),
    ...(documentId !== undefined && { documentId }),
    ...(variables && { variables: JSON.stringify(variables) }),
    ...(extensions && { extensions: JSON.stringify(extensions) }),
  });
  const headers: Record<string, string> = { accept: 'application/graphql-response+json', 'x-graphql-yoga-csrf': '1', ...(key !== null && { 'x-api-key': key }) };
  return { path: `${row.http?.path ?? '/graphql'}?${search}`, headers };
}
