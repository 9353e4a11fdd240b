import { afterEach, describe, expect, it } from 'vitest';
import { startGateway, type Harness } from '../../helpers/gateway.js';
import { createTokenBuckets } from '../../../src/plugins/protection/token-buckets.js';
import { get, post } from '../../helpers/http.js';

const KEY = 'client-one-key-0123456789';
const OTHER_KEY = 'client-two-key-9876543210';
const CITIES = '{ cities { total } }';

describe('rate limiting', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('answers the request over the budget with 429, Retry-After in seconds and RATE_LIMITED', async () => {
    h = await startGateway({ env: { RATE_LIMIT_PER_MINUTE: '2' } });
    const first = await post(h, CITIES);
    const second = await post(h, CITIES);
    const third = await post(h, CITIES);

    expect([first.status, second.status]).toEqual([200, 200]);
    expect(third.status).toBe(429);
    // 2 per minute refill one every 30 s.
    const retryAfter = Number(third.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(29);
    expect(retryAfter).toBeLessThanOrEqual(30);
    expect(third.body).toEqual({ errors: [{ message: expect.stringContaining('2 per minute'), extensions: { code: 'RATE_LIMITED' } }] });
  });

  it('keeps a budget per client: another API key is unaffected', async () => {
    h = await startGateway({ env: { RATE_LIMIT_PER_MINUTE: '1', GATEWAY_API_KEYS: `${KEY},${OTHER_KEY}` } });
    const one = { headers: { 'x-api-key': KEY } };
    expect((await post(h, CITIES, one)).status).toBe(200);
    expect((await post(h, CITIES, one)).status).toBe(429);
    expect((await post(h, CITIES, { headers: { authorization: `Bearer ${OTHER_KEY}` } })).status).toBe(200);
  });

  it('is off by default', async () => {
    h = await startGateway();
    const statuses = await Promise.all(Array.from({ length: 40 }, () => post(h!, CITIES).then((answer) => answer.status)));
    expect(new Set(statuses)).toEqual(new Set([200]));
  });

  it('never limits health checks or metrics scrapes', async () => {
    h = await startGateway({ env: { RATE_LIMIT_PER_MINUTE: '1' } });
    expect((await post(h, CITIES)).status).toBe(200);
    expect((await post(h, CITIES)).status).toBe(429);
    for (const path of ['/healthz', '/readyz', '/metrics', '/metrics']) expect((await get(h, path)).status).toBe(200);
  });
});

describe('token buckets', () => {
  it('refill continuously, one token per minute / capacity', () => {
    let now = 0;
    const buckets = createTokenBuckets({ capacity: 3, now: () => now });
    expect([1, 2, 3, 4].map(() => buckets.take('a').allowed)).toEqual([true, true, true, false]);
    expect(buckets.take('a')).toEqual({ allowed: false, retryAfterS: 20 });
    now += 19_000;
    expect(buckets.take('a')).toEqual({ allowed: false, retryAfterS: 1 });
    now += 1_000;
    expect(buckets.take('a').allowed).toBe(true);
    expect(buckets.take('a').allowed).toBe(false);
  });

  it('keep at most maxClients buckets; an evicted client starts over with a full one', () => {
    const now = 0;
    const buckets = createTokenBuckets({ capacity: 1, maxClients: 2, now: () => now });
    expect(buckets.take('a').allowed).toBe(true);
    expect(buckets.take('a').allowed).toBe(false);
    buckets.take('b');
    buckets.take('c'); // evicts a, the least recently used
    expect(buckets.take('a').allowed).toBe(true);
  });
});
