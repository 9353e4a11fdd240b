/**
 * One response cache for the fleet: an answer one replica stored in Redis is a hit on another,
 * with no execution there. To tell "served from the shared answer" from "executed over the shared
 * data cache" (which costs no upstream call either), tests delete the data entries from Redis
 * before asking the second replica: executing there would then need the upstream.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startGateway, type Harness } from '../../helpers/gateway.js';
import { metric, post, requestLines, scrape, type HttpAnswer } from '../../helpers/http.js';
import { startRedis, type TestRedis } from '../../helpers/redis.js';
import { readiness, startFleet, until, type Fleet } from './fleet.js';

const CITIES = '{ cities(pageSize: 5) { total items { code name } } }';
const CITY = 'query City($c: String!) { city(code: $c) { code name } }';
const PRODUCT = 'query Product($g: String!) { product(goodsCode: $g) { goodsCode productName } }';
const SITE = 'query Site($c: String!) { site(code: $c) { code name } }';
const ANSWERS = 'vg:v1:answer:*';

const enc = encodeURIComponent;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The answer keys in Redis. */
const answerKeys = (redis: TestRedis) => redis.client().keys(ANSWERS);

/** Waits until Redis holds `count` answers (a replica's write does not hold up its response). */
async function untilShared(redis: TestRedis, count: number): Promise<string[]> {
  await until(async () => (await answerKeys(redis)).length >= count);
  return answerKeys(redis);
}

/** Deletes the data entries (not the answers): a replica that executes must then ask the upstream. */
async function forgetData(redis: TestRedis): Promise<void> {
  const keys = await redis.client().keys('vg:v1:cache:*');
  if (keys.length > 0) await redis.client().del(...keys);
}

const cache = (answer: HttpAnswer | Response) => answer.headers.get('x-cache');

describe('one response cache for the fleet', () => {
  let fleet: Fleet | undefined;
  const others: Array<{ close(): Promise<unknown> }> = [];
  afterEach(async () => {
    await fleet?.close();
    fleet = undefined;
    for (const other of others.splice(0).reverse()) await other.close();
  });

  it('answers a POST on replica B with the bytes and ETag replica A stored, executing nothing', async () => {
    fleet = await startFleet();
    const { a, b, mock, redis } = fleet;
    const made = await post(a, CITIES);
    expect(cache(made)).toBe('miss');
    const [key] = await untilShared(redis, 1);
    expect(key).toMatch(/^vg:v1:answer:[0-9a-f]{12}:[0-9a-f]{12}:\{[A-Za-z0-9_-]{43}\}$/);
    await forgetData(redis);
    mock.resetCounters();
    const served = await post(b, CITIES);
    expect(served.status).toBe(200);
    expect(cache(served)).toBe('hit');
    expect(served.text).toBe(made.text);
    expect(served.headers.get('etag')).toBe(made.headers.get('etag'));
    expect(served.headers.get('content-type')).toBe(made.headers.get('content-type'));
    expect([mock.calls(), mock.calls('/oauth/token')]).toEqual([0, 0]);
    expect(requestLines(b).at(-1)).toMatchObject({ responseCache: 'hit', cacheHits: 0, cacheMisses: 0, upstreamCalls: 0 });

    // B keeps what it read: with Redis emptied, still a hit.
    await redis.client().flushall();
    const again = await post(b, CITIES);
    expect([cache(again), again.text]).toEqual(['hit', made.text]);
  });

  it('answers a GET on replica B from replica A\'s answer: 304 to its ETag, else its bytes, aged from when A stored it', async () => {
    fleet = await startFleet();
    const { a, b, mock, redis } = fleet;
    const url = (h: Harness) => `${h.url}/graphql?query=${enc(PRODUCT)}&variables=${enc(JSON.stringify({ g: mock.catalog.products[3]!.goodsCode }))}`;
    const made = await fetch(url(a));
    const madeText = await made.text();
    const etag = made.headers.get('etag')!;
    expect([made.status, cache(made)]).toEqual([200, 'miss']);
    expect(etag).toMatch(/^".+"$/);
    await untilShared(redis, 1);
    await forgetData(redis);
    mock.resetCounters();
    // More than a second: B's `Age` counts from A's store, not from B's read.
    await sleep(1_100);
    const notModified = await fetch(url(b), { headers: { 'if-none-match': etag } });
    expect([notModified.status, cache(notModified), notModified.headers.get('etag'), await notModified.text()]).toEqual([304, 'hit', etag, '']);
    const whole = await fetch(url(b));
    expect([whole.status, cache(whole), whole.headers.get('etag'), await whole.text()]).toEqual([200, 'hit', etag, madeText]);
    expect(Number(whole.headers.get('age'))).toBeGreaterThanOrEqual(1);
    expect(whole.headers.get('cache-control')).toMatch(/^public, max-age=\d+$/);
    expect([mock.calls(), mock.calls('/oauth/token')]).toEqual([0, 0]);
  });

  it('never shares an answer with an error, nor the answers of a batch: replica B executes them', async () => {
    fleet = await startFleet({ env: { UPSTREAM_RETRIES: '0', BATCHING_LIMIT: '3' } });
    const { a, b, mock, redis } = fleet;
    const [failing, good] = mock.catalog.products.map((product) => product.goodsCode);
    const [c1, c2] = mock.catalog.cities.map((city) => city.code);

    mock.fault('/api/product/detail', 'http503', { times: 1 });
    const failed = await post(a, PRODUCT, { variables: { g: failing } });
    expect(failed.body.errors).toHaveLength(1);
    const batch = JSON.stringify([{ query: CITY, variables: { c: c1 } }, { query: CITY, variables: { c: c2 } }]);
    const batched = await fetch(`${a.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: batch });
    expect(await batched.json()).toHaveLength(2);
    // A barrier: A writes in order, so once this answer is in Redis, the ones before would be too.
    expect(cache(await post(a, PRODUCT, { variables: { g: good } }))).toBe('miss');
    expect(await untilShared(redis, 1)).toHaveLength(1);

    const retried = await post(b, PRODUCT, { variables: { g: failing } });
    expect([cache(retried), retried.body.errors, retried.body.data.product.goodsCode]).toEqual(['miss', undefined, failing]);
    const part = await post(b, CITY, { variables: { c: c1 } });
    expect([cache(part), part.body.data.city.code]).toEqual(['miss', c1]);
    const again = await fetch(`${b.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: batch });
    expect(cache(again)).toBeNull();
    expect((await again.json()).map((answer: any) => answer.data.city.code)).toEqual([c1, c2]);
  });

  it('takes a corrupt or foreign value under an answer\'s key for a miss, counted as answer_decode, and answers afresh', async () => {
    fleet = await startFleet();
    const { a, b, mock, redis } = fleet;
    const client = redis.client();
    const tamperings: Array<[string, (key: string) => Promise<unknown>]> = [
      ['plain garbage', (key) => client.set(key, 'not an answer', 'PX', 60_000)],
      ['an answer cut short', async (key) => {
        const bytes = (await client.getBuffer(key))!;
        return client.set(key, bytes.subarray(0, bytes.length - 3), 'PX', 60_000);
      }],
      ['a byte of the body changed', async (key) => {
        const bytes = (await client.getBuffer(key))!;
        bytes[bytes.length - 2] = bytes[bytes.length - 2]! ^ 0x01;
        return client.set(key, bytes, 'PX', 60_000);
      }],
      ['a format this version does not know', async (key) => {
        const bytes = (await client.getBuffer(key))!;
        bytes[0] = 0x7f;
        return client.set(key, bytes, 'PX', 60_000);
      }],
      ['a hash instead of a string', async (key) => {
        await client.del(key);
        return client.hset(key, 'v', '1');
      }],
    ];
    let shared: string[] = [];
    for (const [i, [kind, tamper]] of tamperings.entries()) {
      const code = mock.catalog.cities[i]!.code;
      const made = await post(a, CITY, { variables: { c: code } });
      const keys = await untilShared(redis, shared.length + 1);
      const key = keys.find((candidate) => !shared.includes(candidate))!;
      shared = keys;
      await tamper(key);

      const answered = await post(b, CITY, { variables: { c: code } });
      expect([kind, answered.status, cache(answered), answered.text]).toEqual([kind, 200, 'miss', made.text]);
      // B stored a readable answer again.
      await until(async () => (await client.type(key)) === 'string' && (await client.getBuffer(key))![0] === 0x02);
    }
    expect((await readiness(b)).body.redis).toBe('up');
    const metrics = await scrape(b);
    expect(metric(metrics, 'gateway_redis_errors_total', { operation: 'answer_decode' })).toBe(4);
    expect(metric(metrics, 'gateway_redis_errors_total', { operation: 'answer_read' })).toBe(1);
    expect(b.logs.join('').match(/unreadable answer in redis ignored/g)).toHaveLength(4);
  });

  it('never serves an answer from Redis past the expiry of its data', async () => {
    fleet = await startFleet({ env: { CACHE_TTL_SITES_S: '1' } });
    const { a, b, mock } = fleet;
    const code = mock.catalog.sites[2]!.code;
    const made = await post(a, SITE, { variables: { c: code } });
    expect(cache(made)).toBe('miss');
    // A stored it before it answered, for at most the second its data had left.
    const answeredAt = Date.now();
    await until(async () => Date.now() > answeredAt + 1_000 + 50, 30_000);

    const later = await post(b, SITE, { variables: { c: code } });
    expect([cache(later), later.body.data.site.code]).toEqual(['miss', code]);
  });

  it('keeps an answer read from Redis for the freshness it has left, on the reading replica\'s clock', async () => {
    fleet = await startFleet();
    const { a, b, redis } = fleet;
    const made = await post(a, CITIES);
    await untilShared(redis, 1);
    expect(cache(await post(b, CITIES))).toBe('hit');
    await redis.client().del(...(await answerKeys(redis)));

    b.clock.advance(1_000);
    expect(cache(await post(b, CITIES))).toBe('hit');
    // CACHE_TTL_CITIES_S is 3600: past it on B's clock, B's copy is gone, and Redis has none.
    b.clock.advance(3_600_000);
    const expired = await post(b, CITIES);
    expect([cache(expired), expired.text]).toEqual(['miss', made.text]);
  });

  it('answers on every replica while Redis is down, each caching alone', async () => {
    fleet = await startFleet();
    const { a, b, mock, redis } = fleet;
    await redis.stop();
    await until(async () => (await readiness(a)).body.redis === 'down' && (await readiness(b)).body.redis === 'down');
    const code = mock.catalog.cities[1]!.code;
    for (const replica of [a, b]) {
      const first = await post(replica, CITY, { variables: { c: code } });
      expect([first.status, cache(first), first.body.data.city.code]).toEqual([200, 'miss', code]);
      const second = await post(replica, CITY, { variables: { c: code } });
      expect([cache(second), second.text]).toEqual(['hit', first.text]);
    }
  });

  it('shares an answer only with requests of the same variables and Accept, and still asks B\'s client for its API key', async () => {
    const [key1, key2] = ['fleet-answers-test-key-1', 'fleet-answers-test-key-2'];
    fleet = await startFleet({ env: { GATEWAY_API_KEYS: `${key1},${key2}` } });
    const { a, b, mock, redis } = fleet;
    const [c1, c2] = mock.catalog.cities.map((city) => city.code) as [string, string];
    const withKey = (key: string, accept = 'application/graphql-response+json') => ({ 'x-api-key': key, accept });

    const made = await post(a, CITY, { variables: { c: c1 }, headers: withKey(key1) });
    await untilShared(redis, 1);
    const other = await post(b, CITY, { variables: { c: c2 }, headers: withKey(key1) });
    expect([cache(other), other.body.data.city.code]).toEqual(['miss', c2]);
    const json = await post(b, CITY, { variables: { c: c1 }, headers: withKey(key1, 'application/json') });
    expect([cache(json), json.headers.get('content-type')]).toEqual(['miss', 'application/json; charset=utf-8']);
    const anonymous = await post(b, CITY, { variables: { c: c1 } });
    expect([anonymous.status, cache(anonymous), anonymous.text.includes(c1)]).toEqual([401, null, false]);
    // Every key reads the same data: the answer is another key's to share.
    const shared = await post(b, CITY, { variables: { c: c1 }, headers: withKey(key2) });
    expect([cache(shared), shared.text]).toEqual(['hit', made.text]);
  });

  it('never shares answers between replicas whose settings would answer differently (MAX_PAGE_SIZE)', async () => {
    const redis = await startRedis();
    others.push(redis);
    const env = { REDIS_URL: redis.url, REDIS_COMMAND_TIMEOUT_MS: '2000' };
    const a = await startGateway({ env: { ...env, MAX_PAGE_SIZE: '100' } });
    others.push(a);
    const b = await startGateway({ sharedMock: a.mock, env: { ...env, MAX_PAGE_SIZE: '4' } });
    others.push(b);
    expect(cache(await post(a, CITIES))).toBe('miss');
    await untilShared(redis, 1);
    const refused = await post(b, CITIES);
    expect([cache(refused), refused.body.errors?.[0]?.extensions?.code]).toEqual(['miss', 'BAD_USER_INPUT']);
  });

  it('shares no answer when REDIS_RESPONSE_CACHE_MAX_BYTES is 0: each replica stores its own, the data still shared', async () => {
    fleet = await startFleet({ env: { REDIS_RESPONSE_CACHE_MAX_BYTES: '0' } });
    const { a, b, mock, redis } = fleet;
    expect(cache(await post(a, CITIES))).toBe('miss');
    expect(cache(await post(a, CITIES))).toBe('hit');
    mock.resetCounters();
    expect(cache(await post(b, CITIES))).toBe('miss');
    expect(mock.calls()).toBe(0); // executed over the shared data
    expect(await redis.keys('vg:v1:answer*')).toEqual([]);
  });

  it('shares a stored answer identity in Redis; replica B compresses it once for its br hits (docs "Compression")', async () => {
    fleet = await startFleet();
    const { a, b, redis } = fleet;
    const page = '{ sites(pageSize: 20) { items { code name address points { code name } } } }';
    const made = await post(a, page, { headers: { 'accept-encoding': 'br' } });
    expect([cache(made), made.headers.get('content-encoding')]).toEqual(['miss', 'br']);
    const [key] = await untilShared(redis, 1);
    // The shared value holds the identity JSON (after its binary header: cache/answer-codec.ts).
    expect((await redis.client().getBuffer(key!))!.toString('latin1')).toContain('{"data":{"sites":');
    await forgetData(redis);
    const hits = [await post(b, page, { headers: { 'accept-encoding': 'br' } }), await post(b, page, { headers: { 'accept-encoding': 'br' } })];
    expect(hits.map((hit) => [cache(hit), hit.headers.get('content-encoding')])).toEqual([['hit', 'br'], ['hit', 'br']]);
    expect(hits[1]!.body).toEqual(made.body);
    expect(metric(await scrape(b), 'gateway_compressions_total', { coding: 'br' })).toBe(1);
  });
});
