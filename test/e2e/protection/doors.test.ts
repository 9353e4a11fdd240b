/**
 * One door policy: each refusal, sent through every door a request can arrive by, gets the same
 * `extensions.code`, and the same HTTP status on the two HTTP doors. The doors:
 *
 * - yoga: a gateway with the lean path off (`leanPath: false`), so yoga's HTTP layer reads it;
 * - lean: the same POST to a gateway with the lean path on. The admission runs first, before the
 *   body is read (admission/before-body.ts), and the lean path reads its verdict and answers its
 *   refusals itself; what it does not take, yoga's HTTP layer answers, asking the admission again.
 *   Counting the admission's key checks tells which: one, the lean path answered it itself; more,
 *   yoga did (every gateway here has API keys, so yoga's plugin checks each request it reads);
 * - get: the same request as a GET on the gateway with the lean path off, its parameters in the URL;
 * - ws: graphql-ws's client over `ws`, on the lean gateway's socket.
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
import { startPair, type Pair } from '../http/side-by-side.js';
import { CITIES, ENVS, getRequestOf, hashOf, HTTP_KEY, removeListFile, requestOf, ROWS, WS_KEY, type Params, type Row } from './refusals.js';

const pairs = new Map<string, Promise<Pair>>();
const pairFor = (env: string) => {
  if (!pairs.has(env)) pairs.set(env, startPair(ENVS[env]));
  return pairs.get(env)!;
};
afterAll(async () => {
  for (const pair of pairs.values()) await (await pair).close();
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
    const pair = await pairFor(row.env ?? 'main');
    const key = row.key === undefined ? HTTP_KEY : row.key;
    for (let i = 0; i < (row.spend?.http ?? 0); i += 1) {
      for (const h of [pair.yoga, pair.lean]) expect((await sendHttp(h.url, { ...row, params: { query: CITIES } }, key)).codes).toEqual([]);
    }

    const yoga = await sendHttp(pair.yoga.url, row, key);
    expect([yoga.status, yoga.codes]).toEqual([row.status, [row.code]]);

    if (row.get === undefined || !('na' in row.get)) {
      // GET on both gateways; its budget was spent by the POSTs above (the lean gateway's POST comes below).
      const expected = row.get ?? { status: row.status, code: row.code };
      for (const h of row.lean === 'own' ? [pair.yoga, pair.lean] : [pair.yoga]) {
        const get = await sendHttp(h.url, row, key, true);
        expect([get.status, get.codes]).toEqual([expected.status, [expected.code]]);
        for (const name of row.headers ?? []) expect([name, get.headers.get(name)]).toEqual([name, yoga.headers.get(name)]);
      }
    }

    if (typeof row.lean === 'string') {
      // The key checks the lean gateway's admission makes for this request: the door's, and yoga's if yoga answered it.
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
      // A declined request was checked once before its body was read, then by yoga alone.
      expect(checks).toBe(row.lean === 'own' ? 1 : 1 + row.yogaChecks!);
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
// `subscribe` and SSE (a POST asking for `text/event-stream`, which the lean path serves). The rows refused
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
    // SSE is the lean gateway's: its budget is spent there.
    for (let i = 0; i < (row.spend?.http ?? 0); i += 1) expect((await sendHttp(pair.lean.url, { ...row, params: { query: CITIES } }, key)).codes).toEqual([]);
    const sse = await sendSse(pair.lean.url, params, key);
    expect(sse.codes).toEqual([row.code]);
    expect(sse.status).toBe(row.status);

    const ws = await sendWs(pair.lean.wsUrl, { ...row, params }, row.key === undefined ? WS_KEY : row.key);
    if (row.ws !== undefined && 'close' in row.ws) expect(ws).toEqual({ close: row.ws.close, reason: expect.any(String) });
    else expect(ws).toEqual({ codes: [row.code] });
  });
});
