import { afterEach, describe, expect, it } from 'vitest';
import { clockReading } from '../../helpers/upstream.js';
import { startGateway, type Harness } from '../../helpers/gateway.js';
import { createTokenBuckets } from '../../../src/admission/buckets/token-buckets.js';
import { get, post } from '../../helpers/http.js';
import { post as postRaw } from '../../helpers/raw-http.js';

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
    // 2 per minute refill one every 30 s; the harness's clock stands still meanwhile, however
    // long the three requests take.
    expect(Number(third.headers.get('retry-after'))).toBe(30);
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

  it('counts each load of the GraphiQL page, open without a key: with keys and 5 per minute, the 6th gets 429', async () => {
    h = await startGateway({ env: { RATE_LIMIT_PER_MINUTE: '5', GATEWAY_API_KEYS: KEY } });
    const page = () => fetch(`${h!.url}/graphql`, { headers: { accept: 'text/html' } });
    for (let load = 1; load <= 5; load += 1) {
      const answer = await page();
      expect(answer.headers.get('content-type')).toContain('text/html');
      expect([load, answer.status]).toEqual([load, 200]);
      await answer.arrayBuffer();
    }
    const sixth = await page();
    expect(sixth.status).toBe(429);
    expect(Number(sixth.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await sixth.json()).toEqual({ errors: [{ message: expect.stringContaining('5 per minute'), extensions: { code: 'RATE_LIMITED' } }] });
    // The page's client is its address: a client with a key has its own budget.
    expect((await post(h, CITIES, { headers: { 'x-api-key': KEY } })).status).toBe(200);
  });

  it('counts each operation of a batch, and refuses whole a batch larger than the budget left', async () => {
    h = await startGateway({ env: { RATE_LIMIT_PER_MINUTE: '12', BATCHING_LIMIT: '10' } });
    const batch = Array.from({ length: 10 }, (_, i) => ({ query: `{ cities(pageSize: ${i + 1}) { total } }` }));
    const first = await postRaw(h, batch);
    expect(first.status).toBe(200);
    expect(first.body).toHaveLength(10);

    h.mock.resetCounters();
    const second = await postRaw(h, batch); // 2 left: its arrival takes one, its other 9 do not fit
    expect(second.status).toBe(429);
    expect(Number(second.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(second.body).toEqual({
      errors: [{ message: expect.stringContaining('a batch of 10 operations'), extensions: { code: 'RATE_LIMITED' } }],
    });
    expect(h.mock.calls()).toBe(0);

    expect((await post(h, CITIES)).status).toBe(200); // the last token
    expect((await post(h, CITIES)).status).toBe(429);
  });

  it('refuses a batch of more operations than the per-minute budget, which could never fit', async () => {
    h = await startGateway({ env: { RATE_LIMIT_PER_MINUTE: '3', BATCHING_LIMIT: '5' } });
    const four = await postRaw(h, Array.from({ length: 4 }, () => ({ query: CITIES })));
    expect(four.status).toBe(429);
    expect(four.headers.get('retry-after')).toBeNull();
    expect(four.body.errors[0]).toEqual({ message: expect.stringContaining('more than the 3 per minute'), extensions: { code: 'RATE_LIMITED' } });
    const three = await postRaw(h, Array.from({ length: 2 }, () => ({ query: CITIES })));
    expect(three.status).toBe(200);
  });

  it('leaves a batch over BATCHING_LIMIT to yoga (413) without counting its operations', async () => {
    h = await startGateway({ env: { RATE_LIMIT_PER_MINUTE: '3', BATCHING_LIMIT: '2' } });
    const oversized = await postRaw(h, Array.from({ length: 3 }, () => ({ query: CITIES })));
    expect(oversized.status).toBe(413);
    // It cost one, as any request: two of the three are left.
    expect((await post(h, CITIES)).status).toBe(200);
    expect((await post(h, CITIES)).status).toBe(200);
    expect((await post(h, CITIES)).status).toBe(429);
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
    const buckets = createTokenBuckets({ capacity: 3, clock: clockReading(() => now) });
    expect([1, 2, 3, 4].map(() => buckets.take('a').allowed)).toEqual([true, true, true, false]);
    expect(buckets.take('a')).toEqual({ allowed: false, retryAfterS: 20 });
    now += 19_000;
    expect(buckets.take('a')).toEqual({ allowed: false, retryAfterS: 1 });
    now += 1_000;
    expect(buckets.take('a').allowed).toBe(true);
    expect(buckets.take('a').allowed).toBe(false);
  });

  it('take a count of tokens all or none, and tell when that many will be there', () => {
    let now = 0;
    const buckets = createTokenBuckets({ capacity: 6, clock: clockReading(() => now) });
    expect(buckets.take('a', 4).allowed).toBe(true);
    expect(buckets.take('a', 3)).toEqual({ allowed: false, retryAfterS: 10 }); // 2 left, one more every 10 s
    expect(buckets.take('a', 2).allowed).toBe(true);
    now += 30_000;
    expect(buckets.take('a', 3).allowed).toBe(true);
    expect(() => buckets.take('a', 7)).toThrow(RangeError);
  });

  it('keep at most maxClients buckets; an evicted client starts over with a full one', () => {
    const now = 0;
    const buckets = createTokenBuckets({ capacity: 1, maxClients: 2, clock: clockReading(() => now) });
    expect(buckets.take('a').allowed).toBe(true);
    expect(buckets.take('a').allowed).toBe(false);
    buckets.take('b');
    buckets.take('c'); // evicts a, the least recently used
    expect(buckets.take('a').allowed).toBe(true);
  });
});
