/**
 * A full Redis never costs the fleet its token, a lock or its data entries. Redis is configured as
 * docker-compose.yml configures it, with less memory (`maxmemory 8mb`, `volatile-lru`): one client
 * asking tag-heavy answers, each a new one (a new `Accept`), fills only the shared answers' own
 * budget (`REDIS_RESPONSE_CACHE_MAX_BYTES`), and Redis evicts nothing. When something else fills
 * Redis, it evicts cache entries, which have an expiry, never the token or a lock, which have none.
 * The gateway says so at start when Redis evicts under another policy.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRedisConnection, type RedisConnection } from '../../../src/redis/connection.js';
import { fillOnce } from '../../../src/redis/fill.js';
import type { Harness } from '../../helpers/gateway.js';
import { logEntries, metric, scrape } from '../../helpers/http.js';
import { startRedis, type TestRedis } from '../../helpers/redis.js';
import { startFleet, succeeded, until, type Fleet } from './fleet.js';

const BUDGET = 2 * 1024 * 1024;
/** Enough answers of about 5 KB each in Redis to fill its 8 MB twice over, if nothing bounded them. */
const ANSWERS = 3_000;
const AT_ONCE = 8;
const CODES = Array.from({ length: 15 }, (_, i) => `${String.fromCharCode(65 + i)}${'x'.repeat(62)}${i % 10}`);
const PRODUCTS = `{ ${CODES.map((code, i) => `p${i}: product(goodsCode: "${code}") { goodsCode productName }`).join(' ')} }`;
const SITE = 'query ($c: String!) { site(code: $c) { code name city { name } } }';
const POLICY_WARNING = /^redis maxmemory-policy is /;

/** The `i`-th request of the client: the same answer, a new `Accept`, so a new key. */
async function ask(h: Harness, i: number): Promise<number> {
  const response = await fetch(`${h.url}/graphql?query=${encodeURIComponent(PRODUCTS)}`, {
    headers: { accept: `application/graphql-response+json, application/x-probe-${i};q=0.1` },
  });
  await response.arrayBuffer();
  return response.status;
}

/** A field of `INFO`, as a number. */
async function info(redis: TestRedis, field: string): Promise<number> {
  const text = await redis.client().info();
  return Number(new RegExp(`^${field}:(\\d+)`, 'm').exec(text)?.[1]);
}

describe('a full Redis', () => {
  let redis: TestRedis;
  let fleet: Fleet | undefined;
  let holder: RedisConnection | undefined;
  beforeEach(async () => {
    redis = await startRedis();
    await redis.client().config('SET', 'maxmemory', '8mb');
    await redis.client().config('SET', 'maxmemory-policy', 'volatile-lru');
  });
  afterEach(async () => {
    await fleet?.close();
    fleet = undefined;
    await holder?.close();
    holder = undefined;
    await redis.close();
  });

  /** A lock a replica holds for a long fill, as redis/fill.ts takes it; `release` ends the fill. */
  function holdLock(key: string) {
    holder = createRedisConnection({ topology: { kind: 'single', url: redis.url }, commandTimeoutMs: 2000, channel: 'vg:v1:filled' });
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    const filled = fillOnce(holder, { key, waitMs: 10_000, operation: 'token_lock', check: async () => undefined, produce: () => released.then(() => 'done') });
    return { release, filled };
  }

  /** The fleet, its token taken and some shared data stored: the keys the fleet must keep. */
  async function warmFleet(): Promise<{ token: string; data: string[] }> {
    fleet = await startFleet({ redis, env: { REDIS_RESPONSE_CACHE_MAX_BYTES: String(BUDGET) } });
    const sites = fleet.mock.catalog.sites.slice(0, 10).map((site) => site.code);
    expect((await Promise.all(sites.map((c, i) => fleet!.replica(i).query(SITE, { c })))).every(succeeded)).toBe(true);
    // Both replicas hold the unknown codes in memory: the client's answers cost no data write.
    for (const h of fleet.all) expect(await ask(h, -1)).toBe(200);
    const [token] = (await redis.keys('vg:v1:token:*')).filter((key) => !key.endsWith(':lock'));
    const data = await redis.keys('vg:v1:cache:*');
    expect([token, data.length > 10]).toEqual([expect.any(String), true]);
    return { token: token!, data };
  }

  it('keeps the token, a held lock and the data entries while one client fills the shared answers: they stay within their budget, nothing is evicted', async () => {
    const { token, data } = await warmFleet();
    const lock = holdLock(token);
    await until(async () => (await redis.client().exists(`${token}:lock`)) === 1);
    await redis.client().config('RESETSTAT');
    const before = await info(redis, 'used_memory');

    for (let i = 0; i < ANSWERS; i += AT_ONCE) {
      const statuses = await Promise.all(Array.from({ length: AT_ONCE }, (_, j) => ask(fleet!.replica(i + j), i + j)));
      expect(statuses.every((status) => status === 200)).toBe(true);
    }
    // Every answer indexed (the index's script sets its size once per answer), and those it evicted deleted.
    const answerKeys = () => redis.keys('vg:v1:answer:*');
    await until(async () => /cmdstat_hset:calls=(\d+)/.exec(await redis.client().info('commandstats'))?.[1] === String(ANSWERS));
    const [order] = await redis.keys('vg:v1:answers:*:order');
    await until(async () => (await answerKeys()).length === (await redis.client().zcard(order!)));

    expect(await info(redis, 'evicted_keys')).toBe(0);
    expect([await redis.client().exists(token, `${token}:lock`), await redis.client().pttl(token)]).toEqual([2, -1]);
    expect(await redis.client().exists(...data)).toBe(data.length);
    const counted = Number(await redis.client().get(order!.replace(/order$/, 'bytes')));
    expect(counted).toBeLessThanOrEqual(BUDGET);
    expect((await answerKeys()).length).toBeGreaterThan(100);
    expect(await info(redis, 'used_memory') - before).toBeLessThanOrEqual(1.5 * BUDGET);
    lock.release();
    expect(await lock.filled).toBe('done');
  });

  it('evicts cache entries, never the token or a held lock, when something else fills it', async () => {
    const { token, data } = await warmFleet();
    const lock = holdLock(token);
    await until(async () => (await redis.client().exists(`${token}:lock`)) === 1);
    const filler = redis.client().pipeline();
    for (let i = 0; i < 1_200; i += 1) filler.set(`other:${i}`, 'x'.repeat(10_000), 'PX', 600_000);
    await filler.exec();

    expect(await info(redis, 'evicted_keys')).toBeGreaterThan(0);
    expect(await redis.client().exists(token, `${token}:lock`)).toBe(2);
    expect(await redis.client().exists(...data)).toBeLessThan(data.length); // entries may go: they are a cache
    lock.release();
    expect(await lock.filled).toBe('done');
  });
});

describe('the eviction policy Redis reports at start', () => {
  let redis: TestRedis | undefined;
  let fleet: Fleet | undefined;
  afterEach(async () => {
    await fleet?.close();
    fleet = undefined;
    await redis?.close();
    redis = undefined;
  });

  const warnings = (h: Harness) => logEntries(h).filter((entry) => POLICY_WARNING.test(String(entry.msg)));
  /** Once every replica has asked Redis its policy (answered or refused): `CONFIG` counted `count` times since the last reset. */
  const asked = (count: number) => until(async () => {
    const stats = /cmdstat_config\|get:calls=(\d+),.*?rejected_calls=(\d+)/.exec(await redis!.client().info('commandstats'));
    return Number(stats?.[1] ?? 0) + Number(stats?.[2] ?? 0) >= count;
  });

  it('is named in a warning when it may evict the token (allkeys-lru), and passes unremarked when it is volatile-lru', async () => {
    redis = await startRedis();
    await redis.client().config('SET', 'maxmemory-policy', 'allkeys-lru');
    fleet = await startFleet({ redis });
    await until(async () => fleet!.all.every((h) => warnings(h).length === 1));
    expect(warnings(fleet.a)[0]).toMatchObject({ level: 40, maxmemoryPolicy: 'allkeys-lru' });
    await fleet.close();

    await redis.client().config('SET', 'maxmemory-policy', 'volatile-lru');
    await redis.client().config('RESETSTAT');
    fleet = await startFleet({ redis });
    await asked(2);
    expect(fleet.all.flatMap(warnings)).toEqual([]);
  });

  it('says nothing, and counts no error, when Redis refuses CONFIG (a managed Redis)', async () => {
    redis = await startRedis();
    await redis.client().config('SET', 'maxmemory-policy', 'allkeys-lru');
    await redis.client().call('ACL', 'SETUSER', 'gateway', 'on', '>gateway-pa55', '~*', '&*', '+@all', '-config');
    await redis.client().config('RESETSTAT');
    fleet = await startFleet({ redis, env: { REDIS_URL: redis.url.replace('redis://', 'redis://gateway:gateway-pa55@') } });
    await asked(2);
    expect(succeeded(await fleet.a.query(SITE, { c: fleet.mock.catalog.sites[0]!.code }))).toBe(true);
    expect(fleet.all.flatMap(warnings)).toEqual([]);
    expect(metric(await scrape(fleet.a), 'gateway_redis_errors_total', { operation: 'config' })).toBe(0);
  });
});
