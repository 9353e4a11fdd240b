/**
 * One door policy: each refusal, sent through every door a request can arrive by, gets the same
 * `extensions.code`, and the same HTTP status on the two HTTP doors. The doors:
 *
 * - post: a JSON POST. The admission runs first, before the body is read
 *   (admission/before-body.ts), and the GraphQL road reads its verdict: the key is checked once;
 * - get: the same request as a GET, its parameters in the URL;
 * - ws: graphql-ws's client over `ws`, on the same gateway's socket.
 *
 * A live subscription passes the same admission: the refusals made before GraphQL runs are sent
 * again as subscriptions, over graphql-ws's `subscribe` and over SSE.
 *
 * Where a row does not apply to a door, the table (refusals.ts) says why instead of an expectation.
 */
import { createClient } from 'graphql-ws';
import { afterAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { sha256Hex } from '../../../src/base/config/persisted-operations.js';
import { startGateway, type Harness } from '../../helpers/gateway.js';
import { CITIES, ENVS, getRequestOf, hashOf, HTTP_KEY, removeListFile, requestOf, ROWS, WS_KEY, type Params, type Row } from './refusals.js';

const gateways = new Map<string, Promise<Harness>>();
const gatewayFor = (env: string) => {
  if (!gateways.has(env)) gateways.set(env, startGateway({ env: ENVS[env] }));
  return gateways.get(env)!;
};
afterAll(async () => {
  for (const h of gateways.values()) await (await h).close();
  removeListFile();
});

interface HttpAnswer {
  status: number;
  codes: unknown[];
  messages: string[];
  headers: Headers;
}

// Private: the row's request to `url`, as its JSON POST (or the request the row names), or as a GET.
async function sendHttp(url: string, row: Row, key: string | null, asGet = false): Promise<HttpAnswer> {
  const { method, path, headers, body } = asGet ? { method: 'GET', body: undefined, ...getRequestOf(row, key) } : requestOf(row, key);
  const response = await fetch(`${url}${path}`, { method, headers, body });
  const answer = (await response.json()) as { errors?: Array<{ extensions?: { code?: unknown }; message: string }> };
  const errors = answer.errors ?? [];
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
    const h = await gatewayFor(row.env ?? 'main');
    const key = row.key === undefined ? HTTP_KEY : row.key;
    // The key checks the admission makes for the POST: once, before its body is read.
    const admission = h.gateway.admission;
    const check = admission.key;
    let checks = 0;
    for (let i = 0; i < (row.spend?.http ?? 0); i += 1) expect((await sendHttp(h.url, { ...row, params: { query: CITIES } }, key)).codes).toEqual([]);
    admission.key = (headers) => ((checks += 1), check(headers));
    let post: HttpAnswer;
    try {
      post = await sendHttp(h.url, row, key);
    } finally {
      admission.key = check;
    }
    expect([post.status, post.codes, checks]).toEqual([row.status, [row.code], 1]);
    for (const name of row.headers ?? []) expect(post.headers.get(name)).toBeTruthy();

    if (row.get === undefined || !('na' in row.get)) {
      // Its budget was spent by the POSTs above: a GET over the rate limit is refused all the same.
      const expected = row.get ?? { status: row.status, code: row.code };
      const get = await sendHttp(h.url, row, key, true);
      expect([get.status, get.codes]).toEqual([expected.status, [expected.code]]);
      for (const name of row.headers ?? []) expect([name, get.headers.get(name)]).toEqual([name, post.headers.get(name)]);
    }

    if (row.ws !== undefined && 'na' in row.ws) return;
    if (row.ws !== undefined && 'upgrade' in row.ws) {
      expect(await upgradeTo(h.wsUrl, row.ws.upgrade)).toEqual({ status: row.status, codes: [row.code] });
      return;
    }
    const ws = await sendWs(h.wsUrl, row, row.key === undefined ? WS_KEY : row.key);
    if (row.ws === undefined) expect(ws).toEqual({ codes: [row.code] });
    // The key is checked once per connection: refused, it closes with graphql-ws's 4403, saying what HTTP's 401 says.
    else if ('close' in row.ws) expect(ws).toEqual({ close: row.ws.close, reason: post.messages[0] });
  });
});

// The same admission for a live subscription, through the two doors that carry one: graphql-ws's
// `subscribe` and SSE (a POST asking for `text/event-stream`). The rows refused
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
    const h = await gatewayFor(row.env === 'rate' ? 'rateLive' : (row.env ?? 'main'));
    const key = row.key === undefined ? HTTP_KEY : row.key;
    const params = asSubscription(row.params);
    for (let i = 0; i < (row.spend?.http ?? 0); i += 1) expect((await sendHttp(h.url, { ...row, params: { query: CITIES } }, key)).codes).toEqual([]);
    const sse = await sendSse(h.url, params, key);
    expect(sse.codes).toEqual([row.code]);
    expect(sse.status).toBe(row.status);

    const ws = await sendWs(h.wsUrl, { ...row, params }, row.key === undefined ? WS_KEY : row.key);
    if (row.ws !== undefined && 'close' in row.ws) expect(ws).toEqual({ close: row.ws.close, reason: expect.any(String) });
    else expect(ws).toEqual({ codes: [row.code] });
  });
});
