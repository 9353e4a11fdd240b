/**
 * One door policy: each refusal, sent through every door a request can arrive by, gets the same
 * `extensions.code`, and the same HTTP status on the two HTTP doors. The doors:
 *
 * - yoga: a gateway with the lean path off (`leanPath: false`), so yoga's HTTP layer reads it;
 * - lean: the same POST to a gateway with the lean path on. The lean path asks the admission
 *   first; what it refuses or is unsure of it hands to yoga, which asks the admission again.
 *   Counting the admission's key checks tells which: one, the lean path answered it itself; two,
 *   yoga did (every gateway here has API keys, so yoga's plugin checks each request it reads);
 * - ws: graphql-ws's client over `ws`, on the lean gateway's socket.
 *
 * A live subscription passes the same admission: the refusals made before GraphQL runs are sent
 * again as subscriptions, over graphql-ws's `subscribe` and over SSE.
 *
 * Where a row does not apply to a door, the table says why instead of an expectation.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from 'graphql-ws';
import { afterAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { sha256Hex } from '../../../src/base/config/persisted-operations.js';
import { startPair, type Pair } from '../http/side-by-side.js';

const HTTP_KEY = 'door-test-http-key-0001';
const WS_KEY = 'door-test-socket-key-0002';
const KEYS = { GATEWAY_API_KEYS: `${HTTP_KEY},${WS_KEY}` };
const CITIES = '{ cities { total } }';
const LISTED = '{ cities { items { name } } }';

const dir = mkdtempSync(join(tmpdir(), 'vending-graph-doors-'));
const listFile = join(dir, 'list.json');
writeFileSync(listFile, JSON.stringify({ [sha256Hex(LISTED)]: LISTED }));

/** The gateways' settings, by name: rows that need another than `main` name theirs. */
const ENVS: Record<string, Record<string, string>> = {
  main: { ...KEYS, CSRF_PREVENTION: 'true', INTROSPECTION: 'false', MAX_QUERY_BYTES: '1024', MAX_VARIABLES_BYTES: '1024' },
  rate: { ...KEYS, RATE_LIMIT_PER_MINUTE: '2' },
  // The subscriptions' table spends a budget of its own.
  rateLive: { ...KEYS, RATE_LIMIT_PER_MINUTE: '2' },
  cost: { ...KEYS, MAX_QUERY_COST: '4' },
  budget: { ...KEYS, MAX_UPSTREAM_CALLS_PER_OPERATION: '1' },
  list: { ...KEYS, PERSISTED_OPERATIONS_FILE: listFile, MAX_QUERY_BYTES: '1024' },
};

interface Params {
  query: string;
  variables?: Record<string, unknown>;
  extensions?: Record<string, unknown>;
}

interface Row {
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
   * Who answers it on the lean gateway: the lean path itself, or yoga after the lean path handed
   * it over; `declined`: the lean path does not take it at all (another path, another media type).
   */
  lean: 'own' | 'yoga' | 'declined' | { na: string };
  /** The key checks a declined request gets from yoga alone: none when it is refused before the key. */
  yogaChecks?: number;
  /**
   * WebSocket: the code in an `error` or `next` message, or a close (the key is checked once, at
   * `connection_init`), or the plain HTTP refusal of an upgrade to `upgrade` (a path).
   */
  ws?: { close: number } | { upgrade: string } | { na: string };
  /** An HTTP request other than a JSON POST to the endpoint (CSRF's simple request, another path or media type). */
  http?: { method?: 'GET'; path?: string; contentType?: string };
  /** The HTTP answer's headers that must be there, the same on both doors. */
  headers?: string[];
}

const deep = '{ sites(pageSize: 1) { items { points { site { points { site { code } } } } } } }';
const aliases = `{ ${Array.from({ length: 16 }, (_, i) => `a${i}: cities(pageSize: 1) { total }`).join(' ')} }`;
const hashOf = (query: string) => ({ persistedQuery: { version: 1, sha256Hash: sha256Hex(query) } });

const ROWS: Row[] = [
  { name: 'another path routed as GraphQL', params: { query: CITIES }, http: { path: '/x/graphql' }, code: 'NOT_FOUND', status: 404, lean: 'declined', yogaChecks: 0, ws: { upgrade: '/x/graphql' } },
  {
    name: 'a body of a media type not read', params: { query: CITIES }, http: { contentType: 'application/xml' }, code: 'UNSUPPORTED_MEDIA_TYPE', status: 415,
    lean: 'declined', yogaChecks: 1, headers: ['accept'], ws: { na: 'graphql-ws messages are JSON text frames: there is no media type to choose' },
  },
  { name: 'no API key', key: null, params: { query: CITIES }, code: 'UNAUTHENTICATED', status: 401, lean: 'yoga', ws: { close: 4403 }, headers: ['www-authenticate'] },
  { name: 'a wrong API key', key: 'not-a-key-of-this-gateway', params: { query: CITIES }, code: 'UNAUTHENTICATED', status: 401, lean: 'yoga', ws: { close: 4403 }, headers: ['www-authenticate'] },
  { name: 'over the rate limit', env: 'rate', spend: { http: 2, ws: 2 }, params: { query: CITIES }, code: 'RATE_LIMITED', status: 429, lean: 'yoga', headers: ['retry-after'] },
  { name: 'a query over MAX_QUERY_BYTES', params: { query: `${'#'.repeat(1100)}\n${CITIES}` }, code: 'QUERY_TOO_LARGE', status: 413, lean: 'yoga' },
  { name: 'variables over MAX_VARIABLES_BYTES', params: { query: CITIES, variables: { junk: 'x'.repeat(1100) } }, code: 'VARIABLES_TOO_LARGE', status: 413, lean: 'yoga' },
  { name: 'a syntax error', params: { query: '{ cities { ' }, code: 'GRAPHQL_PARSE_FAILED', status: 400, lean: 'yoga' },
  { name: 'an unknown field', params: { query: '{ nope }' }, code: 'GRAPHQL_VALIDATION_FAILED', status: 400, lean: 'yoga' },
  { name: 'a mutation', params: { query: 'mutation { __typename }' }, code: 'GRAPHQL_VALIDATION_FAILED', status: 400, lean: 'yoga' },
  { name: 'too deep', params: { query: deep }, code: 'DEPTH_LIMIT_EXCEEDED', status: 400, lean: 'yoga' },
  { name: 'too many aliases', params: { query: aliases }, code: 'ALIAS_LIMIT_EXCEEDED', status: 400, lean: 'yoga' },
  { name: 'too costly', env: 'cost', params: { query: '{ cities(pageSize: 1) { total page } }' }, code: 'COST_LIMIT_EXCEEDED', status: 400, lean: 'yoga' },
  { name: 'introspection, disabled', params: { query: '{ __schema { types { name } } }' }, code: 'INTROSPECTION_DISABLED', status: 400, lean: 'yoga' },
  { name: 'a bad argument', params: { query: '{ cities(page: 0) { total } }' }, code: 'BAD_USER_INPUT', status: 200, lean: 'own' },
  { name: 'over the item limit', params: { query: '{ searchProducts(first: 100) { availability(first: 1000) { stock } } }' }, code: 'ITEM_LIMIT_EXCEEDED', status: 200, lean: 'own' },
  { name: 'over the upstream budget', env: 'budget', params: { query: '{ sites(pageSize: 100) { items { code points { cargoLanes { stock product { productName } } } } } }' }, code: 'UPSTREAM_BUDGET_EXCEEDED', status: 200, lean: 'own' },
  ...([
    ['a document in allow-list mode', { query: CITIES }, 'PERSISTED_QUERY_ONLY', 400],
    ['a hash not in the list', { query: '', extensions: hashOf(CITIES) }, 'PERSISTED_QUERY_NOT_IN_LIST', 404],
    ['neither document nor hash in allow-list mode', { query: '' }, 'PERSISTED_QUERY_ID_REQUIRED', 400],
    // The doors disagreed on these two before they shared the rule (WebSocket ran the listed
    // document of a hash without `version: 1`, and refused a long document as not persisted).
    ['a listed hash without version 1', { query: '', extensions: { persistedQuery: { sha256Hash: sha256Hex(LISTED) } } }, 'PERSISTED_QUERY_ID_REQUIRED', 400],
    ['a document over MAX_QUERY_BYTES in allow-list mode', { query: `${'#'.repeat(1100)}\n${CITIES}` }, 'QUERY_TOO_LARGE', 413],
  ] as const).map(([name, params, code, status]): Row => ({
    name, env: 'list', params, code, status, lean: { na: 'the lean path is off in allow-list mode (app/gateway.ts): every request is yoga\'s' },
  })),
  {
    name: 'a GET without a CSRF header', params: { query: CITIES }, http: { method: 'GET' }, code: 'CSRF_HEADER_REQUIRED', status: 403,
    lean: { na: 'the lean path serves JSON POSTs only, which are preflighted: CSRF never refuses one' },
    ws: { na: 'a WebSocket has no simple request, and no client is known by a cookie (edge/ws/websocket.ts)' },
  },
];

const pairs = new Map<string, Promise<Pair>>();
const pairFor = (env: string) => {
  if (!pairs.has(env)) pairs.set(env, startPair(ENVS[env]));
  return pairs.get(env)!;
};
afterAll(async () => {
  for (const pair of pairs.values()) await (await pair).close();
  rmSync(dir, { recursive: true, force: true });
});

interface HttpAnswer {
  status: number;
  codes: unknown[];
  messages: string[];
  headers: Headers;
}

// Private: the row's request to `url` (without an empty query: GraphQL over HTTP has none).
async function sendHttp(url: string, row: Row, key: string | null): Promise<HttpAnswer> {
  const { query, ...rest } = row.params;
  const params = { ...(query === '' ? {} : { query }), ...rest };
  const headers: Record<string, string> = { accept: 'application/graphql-response+json', ...(key !== null && { 'x-api-key': key }) };
  const path = row.http?.path ?? '/graphql';
  const response = row.http?.method === 'GET'
    ? await fetch(`${url}${path}?${new URLSearchParams({ query })}`, { headers })
    : await fetch(`${url}${path}`, { method: 'POST', headers: { ...headers, 'content-type': row.http?.contentType ?? 'application/json' }, body: JSON.stringify(params) });
  const body = (await response.json()) as { errors?: Array<{ extensions?: { code?: unknown }; message: string }> };
  const errors = body.errors ?? [];
  return { status: response.status, codes: errors.map((error) => error.extensions?.code), messages: errors.map((error) => error.message), headers: response.headers };
}

type WsOutcome = { codes: unknown[] } | { close: number; reason: string } | { status: number; codes: unknown[] };

// Private: an upgrade to `path`, refused in plain HTTP before any socket: its status and codes.
function upgradeTo(wsUrl: string, path: string): Promise<WsOutcome> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(wsUrl.replace(/\/graphql$/, path));
    socket.on('open', () => reject(new Error(`the upgrade to ${path} was accepted`)));
    socket.on('error', () => {});
    socket.on('unexpected-response', (_request, response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => {
        const errors = (JSON.parse(body) as { errors: Array<{ extensions: { code: unknown } }> }).errors;
        resolve({ status: response.statusCode!, codes: errors.map((error) => error.extensions.code) });
      });
    });
  });
}

// Private: the row's operation over a connection of its own, after `spend` answered ones.
async function sendWs(wsUrl: string, row: Row, key: string | null): Promise<WsOutcome> {
  // Not lazy: one connection for every operation of the row, not one per operation.
  const client = createClient({ url: wsUrl, webSocketImpl: WebSocket, retryAttempts: 0, lazy: false, onNonLazyError: () => {}, connectionParams: key === null ? {} : { 'x-api-key': key } });
  const run = (params: Params) => new Promise<WsOutcome>((resolve) => {
    const codes: unknown[] = [];
    client.subscribe(params, {
      next: (result) => void codes.push(...(result.errors ?? []).map((error) => error.extensions?.code)),
      error: (error) => {
        if (Array.isArray(error)) return resolve({ codes: error.map((one: { extensions?: { code?: unknown } }) => one.extensions?.code) });
        const { code, reason } = error as { code: number; reason: string };
        resolve({ close: code, reason: String(reason) });
      },
      complete: () => resolve({ codes }),
    });
  });
  try {
    for (let i = 0; i < (row.spend?.ws ?? 0); i += 1) expect(await run({ query: CITIES })).toEqual({ codes: [] });
    return await run(row.params);
  } finally {
    await client.dispose();
  }
}

describe('one admission for every door', () => {
  it.each(ROWS.map((row) => [row.name, row] as const))('refuses %s with the same code at every door', async (_name, row) => {
    const pair = await pairFor(row.env ?? 'main');
    const key = row.key === undefined ? HTTP_KEY : row.key;
    for (let i = 0; i < (row.spend?.http ?? 0); i += 1) {
      for (const h of [pair.yoga, pair.lean]) expect((await sendHttp(h.url, { ...row, params: { query: CITIES } }, key)).codes).toEqual([]);
    }

    const yoga = await sendHttp(pair.yoga.url, row, key);
    expect([yoga.status, yoga.codes]).toEqual([row.status, [row.code]]);

    if (typeof row.lean === 'string') {
      // The key checks the lean gateway's admission makes for this request: its lean path's, and yoga's if it was handed over.
      const admission = pair.lean.gateway.admission;
      const check = admission.key;
      let checks = 0;
      admission.key = (headers) => ((checks += 1), check(headers));
      try {
        const lean = await sendHttp(pair.lean.url, row, key);
        expect([lean.status, lean.codes]).toEqual([row.status, [row.code]]);
        for (const name of row.headers ?? []) expect([name, lean.headers.get(name)]).toEqual([name, yoga.headers.get(name)]);
      } finally {
        admission.key = check;
      }
      expect(checks).toBe(row.lean === 'own' ? 1 : row.lean === 'declined' ? row.yogaChecks : 2);
    }
    for (const name of row.headers ?? []) expect(yoga.headers.get(name)).toBeTruthy();

    if (row.ws !== undefined && 'na' in row.ws) return;
    if (row.ws !== undefined && 'upgrade' in row.ws) {
      expect(await upgradeTo(pair.lean.wsUrl, row.ws.upgrade)).toEqual({ status: row.status, codes: [row.code] });
      return;
    }
    const ws = await sendWs(pair.lean.wsUrl, row, row.key === undefined ? WS_KEY : row.key);
    if (row.ws === undefined) expect(ws).toEqual({ codes: [row.code] });
    // The key is checked once per connection: refused, it closes with graphql-ws's 4403, saying what HTTP's 401 says.
    else if ('close' in row.ws) expect(ws).toEqual({ close: row.ws.close, reason: yoga.messages[0] });
  });
});

// The same admission for a live subscription, through the two doors that carry one: graphql-ws's
// `subscribe` and SSE (a POST asking for `text/event-stream`, which yoga serves). The rows refused
// before GraphQL runs, with the row's document a subscription instead of a query.
const SUBSCRIPTION = 'subscription { siteStock(code: "S000001") { code } }';
const ADMISSION_CODES = new Set(['UNAUTHENTICATED', 'RATE_LIMITED', 'QUERY_TOO_LARGE', 'VARIABLES_TOO_LARGE', 'PERSISTED_QUERY_ONLY', 'PERSISTED_QUERY_NOT_IN_LIST', 'PERSISTED_QUERY_ID_REQUIRED']);

// Private: the row's parameters with the subscription in place of its query (and of the query a hash names).
function asSubscription(params: Params): Params {
  const query = params.query.replace(CITIES, SUBSCRIPTION);
  const persisted = params.extensions?.persistedQuery as { version?: number; sha256Hash: string } | undefined;
  const named = persisted?.version === 1 && persisted.sha256Hash === sha256Hex(CITIES) ? hashOf(SUBSCRIPTION) : params.extensions;
  return { ...params, query, ...(named && { extensions: named }) };
}

// Private: a POST asking for an event stream: the status and the codes, from a JSON refusal or the stream's events.
async function sendSse(url: string, params: Params, key: string | null): Promise<{ status: number; codes: unknown[] }> {
  const { query, ...rest } = params;
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { accept: 'text/event-stream', 'content-type': 'application/json', ...(key !== null && { 'x-api-key': key }) },
    body: JSON.stringify({ ...(query === '' ? {} : { query }), ...rest }),
  });
  const text = await response.text();
  const bodies = response.headers.get('content-type')?.startsWith('text/event-stream')
    ? text.split('\n').filter((line) => line.startsWith('data: ') && line.length > 6).map((line) => line.slice(6))
    : [text];
  const codes = bodies.flatMap((body) => ((JSON.parse(body) as { errors?: Array<{ extensions?: { code?: unknown } }> }).errors ?? []).map((error) => error.extensions?.code));
  return { status: response.status, codes };
}

describe('one admission for every door, for subscriptions', () => {
  const rows = ROWS.filter((row) => ADMISSION_CODES.has(row.code));

  it('covers every refusal the admission makes before GraphQL runs', () => {
    expect(new Set(rows.map((row) => row.code))).toEqual(ADMISSION_CODES);
  });

  it.each(rows.map((row) => [row.name, row] as const))('refuses %s with the same code over WebSocket and SSE', async (_name, row) => {
    const pair = await pairFor(row.env === 'rate' ? 'rateLive' : (row.env ?? 'main'));
    const key = row.key === undefined ? HTTP_KEY : row.key;
    const params = asSubscription(row.params);
    // The SSE door is yoga's, on the lean gateway (the lean path takes no event stream): its budget is spent there.
    for (let i = 0; i < (row.spend?.http ?? 0); i += 1) expect((await sendHttp(pair.lean.url, { ...row, params: { query: CITIES } }, key)).codes).toEqual([]);
    const sse = await sendSse(pair.lean.url, params, key);
    expect(sse.codes).toEqual([row.code]);
    expect(sse.status).toBe(row.status);

    const ws = await sendWs(pair.lean.wsUrl, { ...row, params }, row.key === undefined ? WS_KEY : row.key);
    if (row.ws !== undefined && 'close' in row.ws) expect(ws).toEqual({ close: row.ws.close, reason: expect.any(String) });
    else expect(ws).toEqual({ codes: [row.code] });
  });
});
