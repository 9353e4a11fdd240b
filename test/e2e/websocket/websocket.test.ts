import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient, type Client, type ClientOptions, type FormattedExecutionResult, type SubscribePayload } from 'graphql-ws';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { sha256Hex } from '../../../src/base/config/persisted-operations.js';
import { startGateway, type Harness, type HarnessOptions } from '../../helpers/gateway.js';
import { subscribeSse, type SseSubscriber } from '../../helpers/sse.js';
import { subscribeWs, type WsSubscriber } from '../../helpers/websocket.js';

const KEY = 'websocket-client-key-0123456789';
const CITIES = '{ cities(pageSize: 3) { total items { code name } } }';

/** What one operation over WebSocket got: its `next` payloads, and the error that ended it, if any. */
interface Outcome {
  results: Array<FormattedExecutionResult<Record<string, unknown>, unknown>>;
  error?: unknown;
}

/** A graphql-ws client of the harness's gateway that never reconnects (a refusal stays one). */
function connect(h: Harness, options: Partial<ClientOptions> = {}): Client {
  const client = createClient({ url: h.wsUrl, webSocketImpl: WebSocket, retryAttempts: 0, ...options });
  clients.push(client);
  return client;
}

/** Runs one operation (a query text, or a whole payload) to its end. */
function run(client: Client, operation: string | SubscribePayload): Promise<Outcome> {
  return new Promise((resolve) => {
    const results: Outcome['results'] = [];
    client.subscribe(typeof operation === 'string' ? { query: operation } : operation, {
      next: (result) => void results.push(result),
      error: (error) => resolve({ results, error }),
      complete: () => resolve({ results }),
    });
  });
}

/** The close code a refused or closed connection ended with. */
function closeCodeOf(error: unknown): number | undefined {
  return (error as { code?: number } | undefined)?.code;
}

function codesIn(outcome: Outcome): unknown[] {
  const errors = Array.isArray(outcome.error) ? outcome.error : outcome.results.flatMap((result) => result.errors ?? []);
  return errors.map((error: { extensions?: { code?: unknown } }) => error.extensions?.code);
}

let clients: Client[] = [];
let h: Harness | undefined;

async function start(options: HarnessOptions = {}): Promise<Harness> {
  h = await startGateway(options);
  return h;
}

afterEach(async () => {
  await Promise.all(clients.map((client) => client.dispose()));
  clients = [];
  await h?.close();
  h = undefined;
});

describe('GraphQL over WebSocket: queries', () => {
  it('answers a query over WebSocket with the data the same query gets over HTTP', async () => {
    const gateway = await start();
    const overHttp = await gateway.query(CITIES);
    const overSocket = await run(connect(gateway), CITIES);
    expect(overSocket).toEqual({ results: [overHttp] });
    expect(overHttp.data.cities.items).toHaveLength(3);
  });

  it('answers an invalid query with a coded validation error, and the connection serves the next one', async () => {
    const gateway = await start();
    const client = connect(gateway);
    const invalid = await run(client, '{ cities { nope } }');
    expect(invalid.results).toEqual([]);
    expect(invalid.error).toEqual([
      expect.objectContaining({ message: expect.stringContaining('nope'), extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }),
    ]);
    expect((await run(client, CITIES)).results[0]?.data).toBeTruthy();
  });

  it('answers a syntax error with an error, never by closing the socket', async () => {
    const gateway = await start();
    const client = connect(gateway);
    const broken = await run(client, '{ cities { ');
    expect(broken.error).toEqual([expect.objectContaining({ message: expect.stringContaining('Syntax Error') })]);
    expect((await run(client, CITIES)).results[0]?.data).toBeTruthy();
  });

  it('runs the query limits, the argument checks and the upstream budget, before any upstream call', async () => {
    const gateway = await start({ env: { MAX_QUERY_DEPTH: '3', MAX_UPSTREAM_CALLS_PER_OPERATION: '2' } });
    const client = connect(gateway);
    gateway.mock.resetCounters();
    expect(codesIn(await run(client, '{ cities { items { sites { items { points { code } } } } } }'))).toEqual(['DEPTH_LIMIT_EXCEEDED']);
    expect(codesIn(await run(client, '{ cities(page: 0) { total } }'))).toEqual(['BAD_USER_INPUT']);
    expect(codesIn(await run(client, '{ a: site(code: "S1") { code } b: site(code: "S2") { code } c: site(code: "S3") { code } }')))
      .toEqual(['UPSTREAM_BUDGET_EXCEEDED']);
    expect(gateway.mock.callLog()).toEqual([]);
  });

  it('refuses a query longer than MAX_QUERY_BYTES with QUERY_TOO_LARGE', async () => {
    const gateway = await start({ env: { MAX_QUERY_BYTES: '1024' } });
    const long = `{ cities { total } } # ${'x'.repeat(1100)}`;
    expect(codesIn(await run(connect(gateway), long))).toEqual(['QUERY_TOO_LARGE']);
  });

  it('serves a query the response cache holds with the stored answer, at no upstream call', async () => {
    const gateway = await start();
    const stored = await gateway.query(CITIES);
    gateway.mock.resetCounters();
    expect(await run(connect(gateway), CITIES)).toEqual({ results: [stored] });
    expect(gateway.mock.callLog()).toEqual([]);
    await expect.poll(() => gateway.logs.find((line) => line.includes('"transport":"websocket"'))).toContain('"responseCache":"hit"');
  });

  it('sends no HTTP status in an error: yoga\'s extensions.http stays on the server', async () => {
    const gateway = await start();
    const invalid = await run(connect(gateway), '{ nope }');
    expect(JSON.stringify(invalid.error)).not.toContain('"http"');
  });
});

describe('GraphQL over WebSocket: persisted operations only (PERSISTED_OPERATIONS_FILE)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vending-graph-ws-persisted-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const listed = '{ cities(pageSize: 2) { items { code } } }';

  async function startWithList(): Promise<Harness> {
    const file = join(dir, 'list.json');
    writeFileSync(file, JSON.stringify({ [sha256Hex(listed)]: listed }));
    return start({ env: { PERSISTED_OPERATIONS_FILE: file } });
  }

  const runPersisted = (client: Client, query: string, hash?: string) =>
    run(client, { query, extensions: hash === undefined ? undefined : { persistedQuery: { version: 1, sha256Hash: hash } } });

  it('runs a listed operation by its hash, and refuses any document or an unknown hash, as over HTTP', async () => {
    const gateway = await startWithList();
    const client = connect(gateway);
    const byHash = await runPersisted(client, '', sha256Hex(listed));
    expect(byHash.results[0]?.data).toEqual({ cities: { items: gateway.mock.catalog.cities.slice(0, 2).map(({ code }) => ({ code })) } });
    expect(codesIn(await runPersisted(client, listed))).toEqual(['PERSISTED_QUERY_ONLY']);
    expect(codesIn(await runPersisted(client, listed, sha256Hex(listed)))).toEqual(['PERSISTED_QUERY_ONLY']);
    expect(codesIn(await runPersisted(client, '', sha256Hex('{ nope }')))).toEqual(['PERSISTED_QUERY_NOT_IN_LIST']);
    expect(codesIn(await runPersisted(client, ''))).toEqual(['PERSISTED_QUERY_ID_REQUIRED']);
  });
});

describe('GraphQL over WebSocket: API keys', () => {
  it('refuses a connection without a key with 4403, and says why', async () => {
    const gateway = await start({ env: { GATEWAY_API_KEYS: KEY } });
    const closed = new Promise<{ code: number; reason: string }>((resolve) => {
      connect(gateway, { on: { closed: (event) => resolve(event as { code: number; reason: string }) } });
    }).then(({ code, reason }) => ({ code, reason: String(reason) }));
    const refused = await run(clients[0]!, CITIES);
    expect(closeCodeOf(refused.error)).toBe(4403);
    expect(await closed).toEqual({ code: 4403, reason: 'An API key is required' });
    expect(gateway.mock.calls()).toBe(0);
  });

  it('refuses a wrong key with 4403', async () => {
    const gateway = await start({ env: { GATEWAY_API_KEYS: KEY } });
    const refused = await run(connect(gateway, { connectionParams: { 'x-api-key': 'not-the-key-0123456789' } }), CITIES);
    expect(closeCodeOf(refused.error)).toBe(4403);
  });

  it('accepts a good key in connectionParams, as x-api-key or as a bearer authorization', async () => {
    const gateway = await start({ env: { GATEWAY_API_KEYS: KEY } });
    const asApiKey = await run(connect(gateway, { connectionParams: { 'x-api-key': KEY } }), CITIES);
    const asBearer = await run(connect(gateway, { connectionParams: { Authorization: `Bearer ${KEY}` } }), CITIES);
    expect(asApiKey.results[0]?.data).toBeTruthy();
    expect(asBearer).toEqual(asApiKey);
  });

  it('accepts a good key in the upgrade request\'s headers', async () => {
    const gateway = await start({ env: { GATEWAY_API_KEYS: KEY } });
    class KeyedWebSocket extends WebSocket {
      constructor(url: string, protocols?: string | string[]) {
        super(url, protocols, { headers: { 'x-api-key': KEY } });
      }
    }
    const answer = await run(connect(gateway, { webSocketImpl: KeyedWebSocket }), CITIES);
    expect(answer.results[0]?.data).toBeTruthy();
  });
});

describe('GraphQL over WebSocket: rate limit', () => {
  it('counts the upgrade and each operation as a request: with 3 per minute, the third operation is refused with RATE_LIMITED', async () => {
    const gateway = await start({ env: { RATE_LIMIT_PER_MINUTE: '3' } });
    // One socket for all three (a lazy client would open one per operation).
    const client = connect(gateway, { lazy: false, onNonLazyError: () => {} });
    expect((await run(client, CITIES)).results[0]?.data).toBeTruthy();
    expect((await run(client, CITIES)).results[0]?.data).toBeTruthy();
    const third = await run(client, CITIES);
    expect(third.results).toEqual([]);
    expect(codesIn(third)).toEqual(['RATE_LIMITED']);
  });

  it('counts in the bucket the client\'s HTTP requests use', async () => {
    const gateway = await start({ env: { RATE_LIMIT_PER_MINUTE: '2', GATEWAY_API_KEYS: KEY } });
    const client = connect(gateway, { connectionParams: { 'x-api-key': KEY } });
    expect((await run(client, CITIES)).results[0]?.data).toBeTruthy();
    const overHttp = await fetch(`${gateway.url}/graphql`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': KEY }, body: JSON.stringify({ query: CITIES }),
    });
    expect(overHttp.status).toBe(200);
    await overHttp.arrayBuffer();
    expect(codesIn(await run(client, CITIES))).toEqual(['RATE_LIMITED']);
  });
});

describe('GraphQL over WebSocket: the socket', () => {
  it('tells an open connection that the gateway is going away (1001) when it closes', async () => {
    const gateway = await start();
    const closed = new Promise<number>((resolve) => {
      const client = connect(gateway, {
        lazy: false, onNonLazyError: () => {}, on: { closed: (event) => resolve((event as { code: number }).code) },
      });
      void run(client, CITIES);
    });
    await expect.poll(() => gateway.logs.some((line) => line.includes('"transport":"websocket"'))).toBe(true);
    await gateway.close();
    h = undefined;
    expect(await closed).toBe(1001);
  });

  it('refuses an upgrade to any path but the GraphQL endpoint with 404', async () => {
    const gateway = await start();
    const socket = new WebSocket(`${gateway.url.replace(/^http/, 'ws')}/elsewhere`, 'graphql-transport-ws');
    const status = await new Promise<number | undefined>((resolve) => {
      socket.on('unexpected-response', (_request, response) => resolve(response.statusCode));
      socket.on('error', () => resolve(undefined));
    });
    expect(status).toBe(404);
  });

  it('closes the socket of a message larger than MAX_REQUEST_BODY_BYTES with 1009', async () => {
    const gateway = await start({ env: { MAX_REQUEST_BODY_BYTES: '1024' } });
    const large = await run(connect(gateway), `{ cities { total } } # ${'x'.repeat(1100)}`);
    expect(closeCodeOf(large.error)).toBe(1009);
  });

  it('writes a log line per operation, with its outcome and its client', async () => {
    const gateway = await start({ env: { GATEWAY_API_KEYS: KEY } });
    await run(connect(gateway, { connectionParams: { 'x-api-key': KEY } }), `query Cities ${CITIES}`);
    await expect.poll(() => gateway.logs.find((line) => line.includes('"transport":"websocket"'))).toBeDefined();
    const line = JSON.parse(gateway.logs.find((candidate) => candidate.includes('"transport":"websocket"'))!);
    expect(line).toMatchObject({ msg: 'graphql request', operation: 'Cities', outcome: 'ok', events: 1, errorCodes: [], client: expect.stringMatching(/^key:/) });
    expect(JSON.stringify(line)).not.toContain(KEY);
    const text = await (await fetch(`${gateway.url}/metrics`, { headers: { 'x-api-key': KEY } })).text();
    expect(text).toMatch(/^gateway_graphql_requests_total\{operation="Cities",outcome="ok"\} 1$/m);
  });
});

describe('GraphQL over WebSocket: live stock subscriptions', () => {
  const SITE_STOCK = 'subscription Live($code: String!) { siteStock(code: $code) { code points { code cargoLanes { goodsCode stock } } } }';
  const DETAIL = '/api/site/detail';
  // Rounds run only when a test asks (`pollNow`): the timer's own interval never comes within a test.
  const ENV = { LIVE_POLL_S: '3600' };
  const subscribers: Array<{ close(): unknown }> = [];
  afterEach(() => void subscribers.splice(0).forEach((subscriber) => subscriber.close()));

  const firstLaneStock = (event: { data?: any }) => event.data.siteStock.points[0].cargoLanes[0].stock as number;

  function subscribeOverSocket(gateway: Harness, code: string, options: Partial<ClientOptions> = {}): WsSubscriber {
    const subscriber = subscribeWs(gateway.wsUrl, SITE_STOCK, { code }, options);
    subscribers.push(subscriber);
    return subscriber;
  }

  function subscribeOverSse(gateway: Harness, code: string): SseSubscriber {
    const subscriber = subscribeSse(gateway.url, SITE_STOCK, { code });
    subscribers.push(subscriber);
    return subscriber;
  }

  it('sends the site at once, then an event only when a round finds a change', async () => {
    const gateway = await start({ env: ENV });
    const site = gateway.mock.catalog.sites[0]!;
    const subscriber = subscribeOverSocket(gateway, site.code);
    const [first] = await subscriber.received(1);
    expect(first!.data.siteStock.code).toBe(site.code);
    expect(first!.errors).toBeUndefined();

    await gateway.gateway.live.poller.pollNow(); // nothing changed: no event
    gateway.mock.setStock(site.code, site.points[0]!.code, 0, firstLaneStock(first!) + 5);
    await gateway.gateway.live.poller.pollNow();
    const events = await subscriber.received(2);
    expect(events).toHaveLength(2);
    expect(firstLaneStock(events[1]!)).toBe(firstLaneStock(first!) + 5);
  });

  it('ends a subscription the client completes, keeping its connection, and one whose client leaves: the poll stops', async () => {
    const gateway = await start({ env: ENV });
    const [a, b] = gateway.mock.catalog.sites;
    const completing = subscribeOverSocket(gateway, a!.code);
    const leaving = subscribeOverSocket(gateway, b!.code);
    await Promise.all([completing.received(1), leaving.received(1)]);
    expect(gateway.gateway.live.poller.watchedKeys()).toBe(2);

    completing.unsubscribe();
    expect(await completing.ended).toBe('complete');
    await expect.poll(() => gateway.gateway.live.poller.watchedKeys()).toBe(1);
    await leaving.close();
    await expect.poll(() => gateway.gateway.live.poller.watchedKeys()).toBe(0);
    expect(gateway.gateway.live.subscriptions().siteStock).toBe(0);
    const calls = gateway.mock.calls(DETAIL);
    await gateway.gateway.live.poller.pollNow();
    expect(gateway.mock.calls(DETAIL)).toBe(calls);
  });

  it('serves 100 subscribers of one site across SSE and WebSocket from one upstream call per round, and each gets the change', async () => {
    const gateway = await start({ env: { ...ENV, WS_MAX_SOCKETS_PER_CLIENT: '100' } });
    const site = gateway.mock.catalog.sites[0]!;
    const all = Array.from({ length: 100 }, (_, i) => (i % 2 === 0 ? subscribeOverSocket(gateway, site.code) : subscribeOverSse(gateway, site.code)));
    const firsts = await Promise.all(all.map((subscriber) => subscriber.received(1)));
    expect(firsts.every((events) => events[0]!.data.siteStock.code === site.code)).toBe(true);

    const calls = gateway.mock.calls(DETAIL);
    const stock = firstLaneStock(firsts[0]![0]!) + 9;
    gateway.mock.setStock(site.code, site.points[0]!.code, 0, stock);
    await gateway.gateway.live.poller.pollNow();
    expect(gateway.mock.calls(DETAIL)).toBe(calls + 1);
    const seconds = await Promise.all(all.map((subscriber) => subscriber.received(2)));
    expect(seconds.every((events) => events.length === 2 && firstLaneStock(events[1]!) === stock)).toBe(true);
  });

  it('sends an upstream failure as an event with its code, and the subscription goes on', async () => {
    const gateway = await start({ env: { ...ENV, UPSTREAM_RETRIES: '0' } });
    const site = gateway.mock.catalog.sites[0]!;
    const subscriber = subscribeOverSocket(gateway, site.code);
    await subscriber.received(1);
    gateway.mock.fault(DETAIL, 'http503');
    await gateway.gateway.live.poller.pollNow();
    const [, failure] = await subscriber.received(2);
    expect(failure!.errors?.map((error) => error.extensions?.code)).toEqual(['UPSTREAM_UNAVAILABLE']);
    gateway.mock.clearFaults();
    await gateway.gateway.live.poller.pollNow();
    const [, , back] = await subscriber.received(3);
    expect(back!.data.siteStock.code).toBe(site.code);
  });

  it('counts a client\'s subscriptions over both transports against LIVE_MAX_SUBSCRIPTIONS_PER_CLIENT', async () => {
    const gateway = await start({ env: { ...ENV, LIVE_MAX_SUBSCRIPTIONS_PER_CLIENT: '2' } });
    const code = gateway.mock.catalog.sites[0]!.code;
    await Promise.all([subscribeOverSse(gateway, code).received(1), subscribeOverSocket(gateway, code).received(1)]);
    const [refused] = await subscribeOverSocket(gateway, code).received(1);
    expect(refused!.errors?.map((error) => error.extensions?.code)).toEqual(['TOO_MANY_SUBSCRIPTIONS']);
  });

  it('tells a subscriber the gateway is going away (1001) when it stops, and ends its subscription', async () => {
    const gateway = await start({ env: ENV });
    const subscriber = subscribeOverSocket(gateway, gateway.mock.catalog.sites[0]!.code);
    await subscriber.received(1);
    await gateway.close();
    h = undefined;
    expect(await subscriber.closed).toBe(1001);
    expect(await subscriber.ended).toEqual({ closed: 1001, reason: 'The gateway is shutting down' });
    await expect.poll(() => gateway.gateway.live.subscriptions().siteStock).toBe(0);
  });
});
