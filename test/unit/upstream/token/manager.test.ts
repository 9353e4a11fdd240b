import { Agent } from 'undici';
import { systemClock } from '../../../../src/base/clock.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createMockUpstream, type MockUpstream, type MockUpstreamOptions } from '../../../../src/mock-upstream/index.js';
import type { TokenManager } from '../../../../src/upstream/contracts.js';
import { UpstreamError } from '../../../../src/upstream/errors.js';
import { createTokenManager, type TokenManagerOptions } from '../../../../src/upstream/token/manager.js';
import { TEST_TIMEOUT_MS, manualClock, rejectionOf } from '../../../helpers/upstream.js';
import { sendJson, startRawServer, type RawServer } from '../../../helpers/raw-server.js';

/** vi.waitFor's bound: generous, since a busy machine is slow, not wrong (its default is 1 s). */
const WAIT = { timeout: 10_000 };

let mock: MockUpstream | undefined;
let raw: RawServer | undefined;
const managers: TokenManager[] = [];

afterEach(async () => {
  await Promise.all(managers.splice(0).map((tokens) => tokens.close()));
  await mock?.close();
  await raw?.close();
  mock = undefined;
  raw = undefined;
});

async function startMock(options: MockUpstreamOptions = {}): Promise<MockUpstream> {
  mock = await createMockUpstream(options);
  return mock;
}

function managerFor(target: { tokenUrl: string; clientId?: string; clientSecret?: string }, overrides: Partial<TokenManagerOptions> = {}): TokenManager {
  const tokens = createTokenManager({
    tokenUrl: target.tokenUrl,
    clientId: target.clientId ?? 'demo-client',
    clientSecret: target.clientSecret ?? 'demo-secret',
    clientAuth: 'basic',
    timeoutMs: TEST_TIMEOUT_MS,
    clock: systemClock,
    ...overrides,
  });
  managers.push(tokens);
  return tokens;
}

async function upstreamErrorOf(promise: Promise<unknown>): Promise<UpstreamError> {
  const error = await rejectionOf(promise);
  expect(error).toBeInstanceOf(UpstreamError);
  return error as UpstreamError;
}

describe('client authentication', () => {
  it('sends HTTP Basic credentials form-urlencoded before base64, as RFC 6749 §2.3.1 asks', async () => {
    const upstream = await startMock({ clientId: 'client id:1', clientSecret: 'pa ss+w/rd:é' });
    const tokens = managerFor(upstream);

    expect(await tokens.getToken()).toBe(upstream.issuedTokens()[0]);
    const [request] = upstream.callLog();
    const expected = Buffer.from('client+id%3A1:pa+ss%2Bw%2Frd%3A%C3%A9').toString('base64');
    expect(request?.authorization).toBe(`Basic ${expected}`);
  });

  it('sends client_id and client_secret in the form body with clientAuth post', async () => {
    const upstream = await startMock();
    const tokens = managerFor(upstream, { clientAuth: 'post' });

    expect(await tokens.getToken()).toBe(upstream.issuedTokens()[0]);
    expect(upstream.callLog()[0]?.authorization).toBeUndefined();
  });

  it('posts a client_credentials form, with scope only when one is set', async () => {
    raw = await startRawServer((_req, res) => sendJson(res, 200, { access_token: 'raw-token', token_type: 'Bearer' }));
    const tokenUrl = `${raw.url}/oauth/token`;
    await managerFor({ tokenUrl }, { clientAuth: 'post', scope: 'read:sites read:products' }).getToken();
    await managerFor({ tokenUrl }).getToken();

    const [withScope, basic] = raw.requests;
    expect(withScope?.method).toBe('POST');
    expect(withScope?.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(Object.fromEntries(new URLSearchParams(withScope?.body))).toEqual({
      grant_type: 'client_credentials', scope: 'read:sites read:products', client_id: 'demo-client', client_secret: 'demo-secret',
    });
    expect(Object.fromEntries(new URLSearchParams(basic?.body))).toEqual({ grant_type: 'client_credentials' });
  });
});

describe('token answers', () => {
  it('accepts the RFC 6749 answer and the same wrapped in the upstream envelope', async () => {
    const upstream = await startMock();
    expect(await managerFor(upstream).getToken()).toBe(upstream.issuedTokens()[0]);

    upstream.behaviour.tokenStyle = 'envelope';
    expect(await managerFor(upstream).getToken()).toBe(upstream.issuedTokens()[1]);
  });

  it('reads expires_in given as a numeric string', async () => {
    raw = await startRawServer((_req, res) => sendJson(res, 200, { access_token: `t${raw?.requests.length}`, expires_in: '100' }));
    const clock = manualClock();
    const tokens = managerFor({ tokenUrl: raw.url }, { clock });

    await expect(tokens.getToken()).resolves.toBe('t1');
    clock.advance(89_999);
    await expect(tokens.getToken()).resolves.toBe('t1');
    clock.advance(1); // 10 % of 100 s before the end
    await expect(nextToken(tokens, 't1')).resolves.toBe('t2');
  });

  it('keeps a token without expires_in until it is invalidated', async () => {
    const clock = manualClock();
    const upstream = await startMock({ behaviour: { tokenExpiresIn: false }, now: clock.now });
    const tokens = managerFor(upstream, { clock });

    const first = await tokens.getToken();
    clock.advance(30 * 24 * 3600 * 1000);
    await expect(tokens.getToken()).resolves.toBe(first);
    expect(tokens.tokenRequests).toBe(1);

    tokens.invalidate(first);
    await expect(tokens.getToken()).resolves.not.toBe(first);
    expect(tokens.tokenRequests).toBe(2);
  });

  it('rejects a 200 answer without access_token as UPSTREAM_UNAVAILABLE', async () => {
    raw = await startRawServer((req, res) => (req.url === '/plain'
      ? sendJson(res, 200, { token_type: 'Bearer', expires_in: 60 })
      : sendJson(res, 200, { code: 0, msg: '', result: { token_type: 'Bearer' } })));

    for (const path of ['/plain', '/envelope']) {
      const error = await upstreamErrorOf(managerFor({ tokenUrl: raw.url + path }).getToken());
      expect(error.code).toBe('UPSTREAM_UNAVAILABLE');
      expect(error.message).toMatch(/no access token/);
    }
  });
});

describe('single flight', () => {
  it('makes exactly one token request for 100 concurrent getToken calls', async () => {
    const upstream = await startMock({ latencyMs: 50 });
    const tokens = managerFor(upstream);

    const results = await Promise.all(Array.from({ length: 100 }, () => tokens.getToken()));
    expect(new Set(results)).toEqual(new Set(upstream.issuedTokens()));
    expect(upstream.calls('/oauth/token')).toBe(1);
    expect(tokens.tokenRequests).toBe(1);
  });

  it('invalidates a token only while it is the current one', async () => {
    const upstream = await startMock();
    const tokens = managerFor(upstream);
    const first = await tokens.getToken();

    tokens.invalidate('some-older-token');
    await expect(tokens.getToken()).resolves.toBe(first);
    tokens.invalidate(first);
    const second = await tokens.getToken();
    expect(second).not.toBe(first);

    tokens.invalidate(first); // a late caller still holding the old token
    await expect(tokens.getToken()).resolves.toBe(second);
    expect(upstream.calls('/oauth/token')).toBe(2);
  });
});

describe('proactive refresh', () => {
  it('replaces a token 30 s before a long lifetime ends', async () => {
    const clock = manualClock();
    const upstream = await startMock({ now: clock.now });
    const tokens = managerFor(upstream, { clock });
    const first = await tokens.getToken();

    clock.advance(7200_000 - 30_000 - 1);
    await expect(tokens.getToken()).resolves.toBe(first);
    clock.advance(1);
    const second = await nextToken(tokens, first);
    expect(second).not.toBe(first);
    expect(upstream.tokenTimeoutsSent()).toBe(0);
  });

  it('scales the skew down to 10 % of a short lifetime', async () => {
    const clock = manualClock();
    const upstream = await startMock({ now: clock.now, tokenLifetimeS: 2 });
    const tokens = managerFor(upstream, { clock });
    const first = await tokens.getToken();

    clock.advance(1799);
    await expect(tokens.getToken()).resolves.toBe(first);
    clock.advance(1);
    await expect(nextToken(tokens, first)).resolves.not.toBe(first);
  });

  it('honours refreshSkewMs below the 10 % cap', async () => {
    const clock = manualClock();
    const upstream = await startMock({ now: clock.now });
    const tokens = managerFor(upstream, { clock, refreshSkewMs: 5000 });
    const first = await tokens.getToken();

    clock.advance(7200_000 - 5001);
    await expect(tokens.getToken()).resolves.toBe(first);
    clock.advance(1);
    await expect(nextToken(tokens, first)).resolves.not.toBe(first);
  });

  it('keeps serving a still-valid token while its proactive refresh fails', async () => {
    const clock = manualClock();
    const upstream = await startMock({ now: clock.now });
    const tokens = managerFor(upstream, { clock, failureBackoffMs: 5000 });
    const first = await tokens.getToken();
    upstream.fault('/oauth/token', 'http503');

    clock.advance(7200_000 - 1000); // past the refresh point, before the real end
    await expect(tokens.getToken()).resolves.toBe(first);
    await vi.waitFor(() => expect(tokens.tokenRequests).toBe(2), WAIT);
    await expect(tokens.getToken()).resolves.toBe(first);
    clock.advance(1000); // the real end: now the failure shows (still backing off: no new request)
    await expect(tokens.getToken()).rejects.toMatchObject({ code: 'UPSTREAM_UNAVAILABLE' });
    expect(upstream.calls('/oauth/token')).toBe(2);
  });

  it('leaves no timer running once a token is cached', async () => {
    const upstream = await startMock();
    const tokens = managerFor(upstream);
    const timers = (): number => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
    const before = timers();

    await tokens.getToken();
    expect(timers()).toBeLessThanOrEqual(before);
  });
});

describe('failures', () => {
  it('fails wrong credentials with UPSTREAM_AUTH_FAILED after one request for 20 concurrent callers', async () => {
    const upstream = await startMock({ latencyMs: 30 });
    const tokens = managerFor(upstream, { clientSecret: 'wrong-secret' });

    const errors = await Promise.all(Array.from({ length: 20 }, () => upstreamErrorOf(tokens.getToken())));
    expect(new Set(errors).size).toBe(1);
    expect(errors[0]).toMatchObject({ code: 'UPSTREAM_AUTH_FAILED', status: 401 });
    expect(errors[0]?.message).toMatch(/invalid_client/);
    expect(upstream.calls('/oauth/token')).toBe(1);

    // The next caller within the backoff fails the same way without a request (backoff.test.ts).
    await expect(tokens.getToken()).rejects.toMatchObject({ code: 'UPSTREAM_AUTH_FAILED' });
    expect(upstream.calls('/oauth/token')).toBe(1);
  });

  it('fails an error envelope from the token endpoint with UPSTREAM_AUTH_FAILED', async () => {
    const upstream = await startMock({ behaviour: { tokenStyle: 'envelope' } });
    const wrong = await upstreamErrorOf(managerFor(upstream, { clientId: 'nobody' }).getToken());
    expect(wrong).toMatchObject({ code: 'UPSTREAM_AUTH_FAILED', status: 401, upstreamCode: 401 });

    upstream.fault('/oauth/token', { envelope: { code: 1001, msg: 'client disabled' } });
    const disabled = await upstreamErrorOf(managerFor(upstream).getToken());
    expect(disabled).toMatchObject({ code: 'UPSTREAM_AUTH_FAILED', status: 200, upstreamCode: 1001, upstreamMsg: 'client disabled' });
  });

  it('fails HTTP 400 with an OAuth error with UPSTREAM_AUTH_FAILED', async () => {
    raw = await startRawServer((_req, res) => sendJson(res, 400, { error: 'invalid_scope' }));
    const error = await upstreamErrorOf(managerFor({ tokenUrl: raw.url }).getToken());
    expect(error).toMatchObject({ code: 'UPSTREAM_AUTH_FAILED', status: 400 });
    expect(error.message).toMatch(/invalid_scope/);
  });

  it.each([
    ['http503', 503],
    ['non-json', 200],
    ['reset', undefined],
  ] as const)('fails a %s token endpoint with UPSTREAM_UNAVAILABLE', async (fault, status) => {
    const upstream = await startMock();
    upstream.fault('/oauth/token', fault);
    const error = await upstreamErrorOf(managerFor(upstream).getToken());
    expect(error).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', status, path: '/oauth/token' });
  });

  it('fails a hung token endpoint with UPSTREAM_UNAVAILABLE within timeoutMs', async () => {
    const upstream = await startMock();
    upstream.fault('/oauth/token', 'hang');
    const tokens = managerFor(upstream, { timeoutMs: 300 });

    // A real deadline is the point: the timeout cuts the hanging request. The bound only tells
    // "cut" from "hangs until the test times out", generous for a busy machine.
    const started = performance.now();
    const error = await upstreamErrorOf(tokens.getToken());
    expect(performance.now() - started).toBeLessThan(5000);
    expect(error.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(error.message).toMatch(/timed out after 300 ms/);
  });

  it('tries again on the next getToken once the backoff after a failure has passed', async () => {
    const clock = manualClock();
    const upstream = await startMock();
    upstream.fault('/oauth/token', 'http503', { times: 1 });
    const tokens = managerFor(upstream, { clock });

    await expect(tokens.getToken()).rejects.toMatchObject({ code: 'UPSTREAM_UNAVAILABLE' });
    clock.advance(1000);
    expect(await tokens.getToken()).toBe(upstream.issuedTokens()[0]);
    expect(tokens.tokenRequests).toBe(2);
  });
});

describe('close', () => {
  it('closes its own dispatcher but not one passed in', async () => {
    const upstream = await startMock();
    const own = managerFor(upstream);
    await own.getToken();
    await own.close();
    own.invalidate(upstream.issuedTokens()[0] ?? '');
    await expect(own.getToken()).rejects.toMatchObject({ code: 'UPSTREAM_UNAVAILABLE' });

    const agent = new Agent();
    const borrowed = managerFor(upstream, { dispatcher: agent });
    await borrowed.getToken();
    await borrowed.close();
    expect(agent.closed).toBe(false);
    const { statusCode, body } = await agent.request({ origin: upstream.url, path: '/api/city/list', method: 'GET' });
    await body.dump();
    expect(statusCode).toBe(401);
    await agent.close();
  });
});

/**
 * Past the refresh point the still-valid token is served at once while one background request
 * fetches the next; resolves with that next token once it has landed.
 */
async function nextToken(tokens: TokenManager, previous: string): Promise<string> {
  await expect(tokens.getToken()).resolves.toBe(previous);
  let next = previous;
  await vi.waitFor(async () => {
    next = await tokens.getToken();
    expect(next).not.toBe(previous);
  }, WAIT);
  return next;
}
