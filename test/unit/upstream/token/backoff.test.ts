import { afterEach, describe, expect, it } from 'vitest';
import { createMockUpstream, type MockUpstream, type MockUpstreamOptions } from '../../../../src/mock-upstream/index.js';
import type { TokenManager } from '../../../../src/upstream/contracts.js';
import { UpstreamError } from '../../../../src/upstream/errors.js';
import { createTokenManager, type TokenManagerOptions } from '../../../../src/upstream/token/manager.js';
import { TEST_TIMEOUT_MS, manualClock, rejectionAtOnce, rejectionOf, startUpstream, turnMark, type StartedUpstream } from '../../../helpers/upstream.js';

const TOKEN_PATH = '/oauth/token';

let mock: MockUpstream | undefined;
let upstream: StartedUpstream | undefined;
const managers: TokenManager[] = [];

afterEach(async () => {
  await Promise.all(managers.splice(0).map((tokens) => tokens.close()));
  await mock?.close();
  await upstream?.close();
  mock = undefined;
  upstream = undefined;
});

/** A mock and a token manager on it with a hand-moved clock. */
async function start(overrides: Partial<TokenManagerOptions> = {}, mockOptions: MockUpstreamOptions = {}) {
  mock = await createMockUpstream(mockOptions);
  const clock = manualClock();
  const tokens = createTokenManager({
    tokenUrl: mock.tokenUrl, clientId: mock.clientId, clientSecret: mock.clientSecret, clientAuth: 'basic', timeoutMs: TEST_TIMEOUT_MS, clock, ...overrides,
  });
  managers.push(tokens);
  return { mock, clock, tokens };
}

/**
 * Rejections of `count` concurrent getToken calls, whether all came at once (without a request
 * or a timer, see `turnMark`), and how long the slowest took in ms.
 */
async function failures(tokens: TokenManager, count: number): Promise<{ errors: UpstreamError[]; atOnce: boolean; slowestMs: number }> {
  const mark = turnMark();
  const started = performance.now();
  const errors = await Promise.all(Array.from({ length: count }, () => rejectionOf(tokens.getToken())));
  for (const error of errors) expect(error).toBeInstanceOf(UpstreamError);
  return { errors: errors as UpstreamError[], atOnce: !mark.passed(), slowestMs: performance.now() - started };
}

describe('token endpoint down', () => {
  it('fails fast with the last failure during the backoff, then recovers with exactly one token request', async () => {
    const { mock, clock, tokens } = await start();
    mock.fault(TOKEN_PATH, 'http503');
    await expect(tokens.getToken()).rejects.toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', status: 503 });

    const during = await failures(tokens, 20);
    expect(during.atOnce).toBe(true);
    for (const error of during.errors) {
      expect(error).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', status: 503, path: TOKEN_PATH });
      expect(error.message).toMatch(/no new token request for another 1000 ms/);
    }
    clock.advance(999);
    await failures(tokens, 5);
    expect(mock.calls(TOKEN_PATH)).toBe(1);

    mock.clearFaults();
    clock.advance(1);
    const recovered = await Promise.all(Array.from({ length: 20 }, () => tokens.getToken()));
    expect(new Set(recovered)).toEqual(new Set(mock.issuedTokens()));
    expect(mock.calls(TOKEN_PATH)).toBe(2);
    expect(tokens.tokenRequests).toBe(2);
  });

  it('bounds a hanging token request by timeoutMs, then fails fast without a new request', async () => {
    const { mock, tokens } = await start({ timeoutMs: 200 });
    mock.fault(TOKEN_PATH, 'hang');

    const first = await failures(tokens, 10);
    // A real deadline is the point here: the request is cut by timeoutMs, not earlier. The upper
    // bound only has to tell "cut" from "hangs until the test times out", so it is generous
    // enough for a busy machine.
    expect(first.slowestMs).toBeGreaterThanOrEqual(190);
    expect(first.slowestMs).toBeLessThan(5000);
    expect(first.errors[0]?.message).toMatch(/timed out after 200 ms/);

    const next = await failures(tokens, 10);
    expect(next.atOnce).toBe(true);
    expect(next.errors.every((error) => error.code === 'UPSTREAM_UNAVAILABLE')).toBe(true);
    expect(mock.calls(TOKEN_PATH)).toBe(1);
  });

  it('doubles the backoff after each failure in a row up to maxFailureBackoffMs, and starts over after a success', async () => {
    const { mock, clock, tokens } = await start({ failureBackoffMs: 100, maxFailureBackoffMs: 300 });
    mock.fault(TOKEN_PATH, 'http503');
    const requestsAfter = async (advanceMs: number): Promise<number> => {
      clock.advance(advanceMs);
      await tokens.getToken().catch(() => undefined);
      return mock?.calls(TOKEN_PATH) ?? 0;
    };

    expect(await requestsAfter(0)).toBe(1);
    expect(await requestsAfter(99)).toBe(1);
    expect(await requestsAfter(1)).toBe(2); // after 100 ms
    expect(await requestsAfter(199)).toBe(2);
    expect(await requestsAfter(1)).toBe(3); // after 200 ms
    expect(await requestsAfter(299)).toBe(3);
    expect(await requestsAfter(1)).toBe(4); // after 300 ms: the cap, not 400
    expect(await requestsAfter(300)).toBe(5);

    mock.clearFaults();
    clock.advance(300);
    const token = await tokens.getToken();
    mock.fault(TOKEN_PATH, 'http503');
    tokens.invalidate(token);
    expect(await requestsAfter(0)).toBe(7);
    expect(await requestsAfter(100)).toBe(8); // 100 ms again
  });

  it('backs off after refused credentials too, so no caller causes a request storm', async () => {
    const { mock, clock, tokens } = await start({ clientSecret: 'wrong-secret' });

    const first = await failures(tokens, 20);
    const later = await failures(tokens, 20);
    expect([...first.errors, ...later.errors].every((error) => error.code === 'UPSTREAM_AUTH_FAILED' && error.status === 401)).toBe(true);
    expect(mock.calls(TOKEN_PATH)).toBe(1);

    clock.advance(1000);
    await failures(tokens, 20);
    expect(mock.calls(TOKEN_PATH)).toBe(2);
  });

  it('keeps no timer running while it backs off', async () => {
    const { mock, tokens } = await start();
    mock.fault(TOKEN_PATH, 'http503');
    const timers = (): number => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
    const before = timers();

    await failures(tokens, 5);
    expect(timers()).toBeLessThanOrEqual(before);
  });

  it('fails API calls fast while the token endpoint backs off, without calling the API', async () => {
    upstream = await startUpstream();
    const { client, mock: api } = upstream;
    api.fault(TOKEN_PATH, 'http503');
    await expect(client.get('/api/city/list')).rejects.toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', path: TOKEN_PATH });

    for (let i = 0; i < 10; i += 1) {
      await expect(rejectionAtOnce(() => client.get('/api/city/list'))).resolves.toMatchObject({ code: 'UPSTREAM_UNAVAILABLE' });
    }
    expect(api.calls(TOKEN_PATH)).toBe(1);
    expect(api.calls()).toBe(0);
  });
});
