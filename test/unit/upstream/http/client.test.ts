import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../../../src/base/clock.js';
import type { TokenManager, UpstreamClient } from '../../../../src/upstream/contracts.js';
import { UpstreamError } from '../../../../src/upstream/errors.js';
import { createUpstreamClient, type UpstreamClientOptions } from '../../../../src/upstream/http/client.js';
import { until } from '../../../helpers/http.js';
import { TEST_TIMEOUT_MS, manualClock, rejectionAtOnce, rejectionOf, startUpstream, type StartUpstreamOptions, type StartedUpstream } from '../../../helpers/upstream.js';
import { sendJson, startRawServer, type RawServer } from '../../../helpers/raw-server.js';

let upstream: StartedUpstream | undefined;
let raw: RawServer | undefined;
const clients: UpstreamClient[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await upstream?.close();
  await raw?.close();
  upstream = undefined;
  raw = undefined;
});

async function start(options: StartUpstreamOptions = {}): Promise<StartedUpstream> {
  upstream = await startUpstream(options);
  return upstream;
}

async function upstreamErrorOf(promise: Promise<unknown>): Promise<UpstreamError> {
  const error = await rejectionOf(promise);
  expect(error).toBeInstanceOf(UpstreamError);
  return error as UpstreamError;
}

/** A token manager handing out fixed tokens from a list (the last one repeats). */
function scriptedTokens(...values: string[]): TokenManager & { invalidated: string[] } {
  const invalidated: string[] = [];
  let handedOut = 0;
  return {
    invalidated,
    getToken: async () => values[Math.min(handedOut++, values.length - 1)] as string,
    invalidate: (token) => void invalidated.push(token),
    get tokenRequests() {
      return handedOut;
    },
    close: async () => {},
  };
}

/** A raw upstream whose API answers come from `answer`; the client authenticates with 'raw-token'. */
async function rawClient(answer: Parameters<typeof startRawServer>[0], options: Partial<UpstreamClientOptions> = {}) {
  raw = await startRawServer(answer);
  const tokens = scriptedTokens('raw-token-1', 'raw-token-2');
  const client = createUpstreamClient({ baseUrl: raw.url, timeoutMs: TEST_TIMEOUT_MS, tokens, clock: systemClock, ...options });
  clients.push(client);
  return { client, tokens, server: raw };
}

/** A client on the mock with its own token manager; closed after the test. */
function clientWith(baseUrl: string, tokens: TokenManager): UpstreamClient {
  const client = createUpstreamClient({ baseUrl, timeoutMs: TEST_TIMEOUT_MS, tokens, clock: systemClock });
  clients.push(client);
  return client;
}

describe('requests', () => {
  it('resolves with result when the envelope code is 0', async () => {
    const { client, mock } = await start();
    const page = await client.get('/api/city/list', { page: 2, pageSize: 3 }) as { items: { code: string }[]; total: number };

    expect(page.total).toBe(mock.catalog.cities.length);
    expect(page.items.map((city) => city.code)).toEqual(mock.catalog.cities.slice(3, 6).map((city) => city.code));
  });

  it('encodes query parameters and leaves undefined ones out', async () => {
    const { client, mock } = await start();
    await client.get('/api/site/detail', { siteCode: 'a b&c=d/é?', page: undefined });

    expect(mock.callLog().at(-1)?.query).toEqual({ siteCode: 'a b&c=d/é?' });
  });

  it('sends the token only in the Authorization header, never in the URL', async () => {
    const { client, mock } = await start();
    await client.get('/api/city/list', { page: 1 });
    await client.get('/api/product/detail', { goodsCode: 'x' });

    const [token] = mock.issuedTokens();
    const apiCalls = mock.callLog().filter((call) => call.path !== '/oauth/token');
    expect(apiCalls.map((call) => call.authorization)).toEqual([`Bearer ${token}`, `Bearer ${token}`]);
    for (const call of mock.callLog()) expect(JSON.stringify(call.query)).not.toContain(token);
  });

  it('makes GET requests over kept-alive connections', async () => {
    const context = await rawClient((_req, res) => sendJson(res, 200, { code: 0, result: 'ok' }));
    for (let i = 0; i < 20; i += 1) await context.client.get('/api/city/list');

    expect(new Set(context.server.requests.map((req) => req.method))).toEqual(new Set(['GET']));
    // undici may open a second socket while the first is finishing a response; never one per call.
    expect(context.server.connections()).toBeLessThanOrEqual(2);
  });

  it('accepts the envelope code as the string "0"', async () => {
    const context = await rawClient((_req, res) => sendJson(res, 200, { code: '0', msg: '', result: { items: [] } }));
    await expect(context.client.get('/api/city/list')).resolves.toEqual({ items: [] });
  });

  it('resolves a code-0 envelope whatever the HTTP status', async () => {
    const context = await rawClient((_req, res) => sendJson(res, 503, { code: 0, msg: '', result: { ok: true } }));
    await expect(context.client.get('/api/city/list')).resolves.toEqual({ ok: true });
  });

  it('rejects a path without a leading slash, echoing it, before any request', async () => {
    const context = await rawClient((_req, res) => sendJson(res, 200, { code: 0, result: null }));
    await expect(context.client.get('api/city/list')).rejects.toThrow('path must start with "/" and carry no query, but got: "api/city/list"');
    await expect(context.client.get('/api/city/list?page=1')).rejects.toThrow(TypeError);
    expect(context.server.requests).toEqual([]);
  });

  it('rejects bad resilience options before any request, naming each with its value', () => {
    const create = (options: Partial<UpstreamClientOptions>) => () => createUpstreamClient({ baseUrl: 'http://127.0.0.1:1', timeoutMs: 1000, tokens: scriptedTokens('t'), clock: systemClock, ...options });
    const all = create({ retries: -1, maxConcurrency: 0, breakerFailureRatio: 1.5 });
    expect(all).toThrow('retries must be an integer >= 0, but got: -1');
    expect(all).toThrow('maxConcurrency must be an integer >= 1, but got: 0');
    expect(all).toThrow('breakerFailureRatio must be in (0, 1], but got: 1.5');
    expect(create({ maxQueue: 2.5 })).toThrow(RangeError);
  });

  it('keeps a base URL path prefix', async () => {
    raw = await startRawServer((_req, res) => sendJson(res, 200, { code: 0, result: null }));
    await clientWith(`${raw.url}/open/`, scriptedTokens('t')).get('/api/city/list', { page: 1 });
    expect(raw.requests[0]?.url).toBe('/open/api/city/list?page=1');
  });
});

describe.each([200, 500, 503, 401])('with error envelopes sent as HTTP %i', (errorStatus) => {
  // HTTP 401 also means "token refused", so such an error costs one retry with a fresh token.
  const attempts = errorStatus === 401 ? 2 : 1;

  it('still resolves successful calls', async () => {
    const { client } = await start({ mock: { behaviour: { errorStatus } } });
    await expect(client.get('/api/products/list', { pageSize: 2 })).resolves.toMatchObject({ items: [{}, {}] });
  });

  it(`rejects an error envelope with UPSTREAM_ERROR after ${attempts} attempt(s)`, async () => {
    const { client, mock } = await start({ mock: { behaviour: { errorStatus, notFound: 'error' } } });
    const error = await upstreamErrorOf(client.get('/api/site/detail', { siteCode: 'no-such-site' }));

    expect(error).toMatchObject({ code: 'UPSTREAM_ERROR', upstreamCode: 404, upstreamMsg: 'data not found', status: errorStatus, path: '/api/site/detail' });
    expect(mock.calls('/api/site/detail')).toBe(attempts);
    expect(mock.calls('/oauth/token')).toBe(attempts);
  });

  it('recovers from one token timeout with one retry', async () => {
    const { client, mock } = await start({ mock: { behaviour: { errorStatus } } });
    mock.fault('/api/city/list', 'token-timeout', { times: 1 });

    await expect(client.get('/api/city/list')).resolves.toMatchObject({ total: mock.catalog.cities.length });
    expect(mock.calls('/api/city/list')).toBe(2);
    expect(mock.calls('/oauth/token')).toBe(2);
  });
});

describe('failures', () => {
  // Without retries: these tests are about how each failure is reported (retries: retries.test.ts).
  it.each([
    ['http503', 503, /HTTP 503 without an envelope/],
    ['non-json', 200, /HTTP 200 with an HTML page, not JSON/],
    ['reset', undefined, /failed: (UND_ERR_SOCKET|ECONNRESET)/],
  ] as const)('rejects a %s answer with UPSTREAM_UNAVAILABLE', async (fault, status, message) => {
    const { client, mock } = await start({ client: { retries: 0 } });
    mock.fault('/api/city/list', fault);
    const error = await upstreamErrorOf(client.get('/api/city/list'));

    expect(error).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', status, path: '/api/city/list' });
    expect(error.message).toMatch(message);
    expect(mock.calls('/api/city/list')).toBe(1);
  });

  it('rejects a 4xx answer without an envelope with UPSTREAM_UNAVAILABLE', async () => {
    const { client, mock } = await start({ mock: { behaviour: { missingPaths: ['/api/sites/list'] } } });
    await expect(client.get('/api/sites/list')).rejects.toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', status: 404 });
    expect(mock.calls('/api/sites/list')).toBe(1);
  });

  it('rejects JSON without a numeric code with UPSTREAM_UNAVAILABLE', async () => {
    const bodies = [{ msg: 'no code', result: {} }, { code: 'zero', result: {} }, [0], 'just a string'];
    const context = await rawClient((req, res) => sendJson(res, 200, bodies[Number(req.url.split('=')[1])]), { retries: 0 });
    for (let i = 0; i < bodies.length; i += 1) {
      await expect(context.client.get('/api/city/list', { i })).rejects.toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', status: 200 });
    }
  });

  it('rejects a body over maxBodyBytes with UPSTREAM_UNAVAILABLE, declared or streamed', async () => {
    const { client } = await start({ client: { maxBodyBytes: 200 } });
    const declared = await upstreamErrorOf(client.get('/api/city/list', { pageSize: 50 }));
    expect(declared).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', status: 200 });
    expect(declared.message).toMatch(/body over 200 bytes/);

    const context = await rawClient((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }); // chunked: no content-length
      res.write(`{"code":0,"result":"${'x'.repeat(150)}`);
      setTimeout(() => res.end(`${'y'.repeat(150)}"}`), 20);
    }, { maxBodyBytes: 200 });
    await expect(context.client.get('/api/city/list')).rejects.toThrow(/body over 200 bytes/);
  });

  it('propagates UPSTREAM_AUTH_FAILED from the token manager without calling the API', async () => {
    const { client, mock } = await start({ tokens: { clientSecret: 'wrong' } });
    await expect(client.get('/api/city/list')).rejects.toMatchObject({ code: 'UPSTREAM_AUTH_FAILED' });
    expect(mock.callLog().map((call) => call.path)).toEqual(['/oauth/token']);
  });
});

describe('timeouts and aborts', () => {
  // 700 ms for the slow body: longer than its 500 ms byte interval, so only a whole-call deadline
  // (not undici's per-chunk bodyTimeout) can end it.
  it.each([
    ['hang', 300],
    ['slow-body', 700],
  ] as const)('rejects a %s upstream with UPSTREAM_UNAVAILABLE within timeoutMs %i', async (fault, timeoutMs) => {
    const { client, mock } = await start({ client: { timeoutMs, retries: 0 } });
    await client.tokens.getToken();
    mock.fault('/api/city/list', fault);

    const started = performance.now();
    const error = await upstreamErrorOf(client.get('/api/city/list', { pageSize: 50 }));
    const elapsed = performance.now() - started;
    expect(error.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(error.message).toMatch(`timed out after ${timeoutMs} ms`);
    // A real deadline is the point: not cut before timeoutMs. The upper bound only tells "cut by
    // the deadline" from "hangs or trickles on for minutes", generous for a busy machine.
    expect(elapsed).toBeGreaterThanOrEqual(timeoutMs - 50);
    expect(elapsed).toBeLessThan(timeoutMs + 5000);
  });

  it('rejects with UPSTREAM_UNAVAILABLE as soon as the caller aborts', async () => {
    const { client, mock } = await start();
    await client.tokens.getToken();
    mock.fault('/api/city/list', 'hang');
    const controller = new AbortController();
    const call = client.get('/api/city/list', {}, { signal: controller.signal });
    await until(() => mock.inFlight('/api/city/list') === 1);

    const error = await rejectionAtOnce(() => {
      controller.abort();
      return call;
    });
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE' });
    expect((error as Error).message).toMatch(/aborted by the caller/);
  });

  it('makes no request for a signal that is already aborted', async () => {
    const { client, mock } = await start();
    await expect(client.get('/api/city/list', {}, { signal: AbortSignal.abort() })).rejects.toMatchObject({ code: 'UPSTREAM_UNAVAILABLE' });
    expect(mock.calls()).toBe(0);
  });

  it('stops waiting for a hung token endpoint when the caller aborts', async () => {
    const { client, mock } = await start({ tokens: { timeoutMs: 10_000 } });
    mock.fault('/oauth/token', 'hang');
    const controller = new AbortController();
    const call = client.get('/api/city/list', {}, { signal: controller.signal });
    await until(() => mock.inFlight('/oauth/token') === 1);

    const error = await rejectionAtOnce(() => {
      controller.abort();
      return call;
    });
    expect(error).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE' });
  });
});

describe('reactive token handling', () => {
  it('replaces an expired token with one token request for 50 concurrent calls, without caller errors', async () => {
    const { client, mock } = await start({ mock: { latencyMs: 20 } });
    await client.get('/api/city/list');
    mock.expireAllTokens();
    mock.resetCounters();

    const outcomes = await Promise.allSettled(Array.from({ length: 50 }, (_, i) => client.get('/api/product/detail', { goodsCode: `g${i}` })));
    expect(outcomes.filter((outcome) => outcome.status === 'rejected')).toEqual([]);
    expect(mock.calls('/oauth/token')).toBe(1);
    expect(mock.tokenTimeoutsSent()).toBe(50);
  });

  it('retries a token timeout exactly once, then rejects with UPSTREAM_ERROR code 500', async () => {
    const { client, mock } = await start();
    mock.fault('/api/site/detail', 'token-timeout');
    const error = await upstreamErrorOf(client.get('/api/site/detail', { siteCode: 'x' }));

    expect(error).toMatchObject({ code: 'UPSTREAM_ERROR', upstreamCode: 500, upstreamMsg: 'token is timeout. please retry.' });
    expect(mock.calls('/api/site/detail')).toBe(2);
    expect(mock.calls('/oauth/token')).toBe(2);
  });

  it('recognises a token timeout with a string code and other wording', async () => {
    const context = await rawClient((req, res) => (req.headers.authorization === 'Bearer raw-token-1'
      ? sendJson(res, 200, { code: '500', msg: 'Token expired, please retry' })
      : sendJson(res, 200, { code: 0, result: 'fresh' })));
    await expect(context.client.get('/api/city/list')).resolves.toBe('fresh');
    expect(context.tokens.invalidated).toEqual(['raw-token-1']);
  });

  it('does not retry other code-500 envelopes', async () => {
    const { client, mock } = await start();
    mock.fault('/api/city/list', { envelope: { code: 500, msg: 'internal error' } });
    await expect(client.get('/api/city/list')).rejects.toMatchObject({ code: 'UPSTREAM_ERROR', upstreamCode: 500 });
    expect(mock.calls('/api/city/list')).toBe(1);
  });

  it('recovers from a token the upstream does not know (HTTP 401) with one retry', async () => {
    const { mock, tokens } = await start();
    let handedOut = 0;
    const firstUnknown: TokenManager = {
      getToken: () => (handedOut++ === 0 ? Promise.resolve('unknown-token') : tokens.getToken()),
      invalidate: (token) => tokens.invalidate(token),
      tokenRequests: 0,
      close: () => tokens.close(),
    };
    await expect(clientWith(mock.url, firstUnknown).get('/api/city/list')).resolves.toMatchObject({ total: mock.catalog.cities.length });
    expect(mock.calls('/api/city/list')).toBe(2);
    expect(handedOut).toBe(2);
  });

  it('rejects a token refused twice with its envelope as UPSTREAM_ERROR code 401', async () => {
    const { mock } = await start();
    const tokens = scriptedTokens('unknown-1', 'unknown-2');
    const error = await upstreamErrorOf(clientWith(mock.url, tokens).get('/api/city/list'));

    expect(error).toMatchObject({ code: 'UPSTREAM_ERROR', status: 401, upstreamCode: 401, upstreamMsg: 'invalid token' });
    // Both refused tokens are invalidated: the token manager backs off from a second refusal.
    expect(tokens.invalidated).toEqual(['unknown-1', 'unknown-2']);
    expect(mock.calls('/api/city/list')).toBe(2);
  });

  it('rejects a bare HTTP 401 for a fresh token as UPSTREAM_AUTH_FAILED', async () => {
    const context = await rawClient((_req, res) => {
      res.writeHead(401, { 'www-authenticate': 'Bearer' });
      res.end();
    });
    await expect(context.client.get('/api/city/list')).rejects.toMatchObject({ code: 'UPSTREAM_AUTH_FAILED', status: 401 });
    expect(context.server.requests.map((req) => req.headers.authorization)).toEqual(['Bearer raw-token-1', 'Bearer raw-token-2']);
  });
});

describe('proactive refresh', () => {
  it('replaces a short-lived token before the upstream would reject it', async () => {
    // One hand-moved clock for the mock's token expiry and the token manager: 2.4 s of calls
    // every 25 ms pass exactly so, however busy the machine.
    const clock = manualClock();
    const { client, mock, tokens } = await start({ mock: { tokenLifetimeS: 2, now: clock.now }, tokens: { clock } });
    for (let elapsedMs = 0; elapsedMs < 2400; elapsedMs += 25) {
      await client.get('/api/city/list', { pageSize: 1 });
      clock.advance(25);
    }

    expect(tokens.tokenRequests).toBeGreaterThanOrEqual(2);
    expect(mock.tokenTimeoutsSent()).toBe(0);
  });
});
