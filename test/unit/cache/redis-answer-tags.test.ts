/**
 * The index of the shared answers in Redis (cache/answer-index.ts, through cache/redis-answers.ts):
 * a write is one `SET` and one script whatever the answer's tags, counted by Redis itself
 * (`INFO commandstats`); the answers stay within their byte budget, the first to expire going
 * first; expired answers leave the index on later writes; a purge finds and deletes only live
 * answers. A real Redis; the wall clock is the test's.
 */
import { clockReading } from '../../helpers/upstream.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { answerEtag } from '../../../src/cache/answer-codec.js';
import { createRedisAnswers, type SharedAnswers } from '../../../src/cache/redis-answers.js';
import { createRedisConnection, type RedisConnection } from '../../../src/redis/connection.js';
import { startRedis, type TestRedis } from '../../helpers/redis.js';
import { until } from '../../helpers/http.js';

const INDEX = 'test:answers:{scope}:';
const body = new TextEncoder().encode(`{"data":{"product":${'null,'.repeat(30)}null}}`);
const answer = (ttlMs: number, tags: string[]) => ({ body, contentType: 'application/json', etag: answerEtag(body), ageMs: 0, ttlMs, tags });
/** 15 tags of 72 characters, as 15 unknown products' lookups name them. */
const productTags = (i: number) => Array.from({ length: 15 }, (_, t) => `product:${`${i}-${t}`.padEnd(64, 'x')}`);

describe('the index of shared answers', () => {
  let redis: TestRedis;
  let connection: RedisConnection;
  let wall = 1_000_000;
  beforeAll(async () => { redis = await startRedis(); });
  afterAll(() => redis.close());
  afterEach(async () => {
    await connection.close();
    await redis.flush();
  });
  const start = (maxBytes: number): SharedAnswers => {
    connection = createRedisConnection({ topology: { kind: 'single', url: redis.url }, commandTimeoutMs: 2000, channel: 'test:filled' });
    return createRedisAnswers({ connection, prefix: 'test:answer:', indexPrefix: INDEX, maxBytes, clock: clockReading(() => wall) });
  };
  const indexed = async () => redis.client().zrange(`${INDEX}order`, '0', '-1');
  const counted = async () => Number(await redis.client().get(`${INDEX}bytes`));

  it('stores each answer with one SET and one script, one round trip, whatever its tags', async () => {
    const answers = start(64 * 1024 * 1024);
    answers.write('warm', answer(60_000, ['cities'])); // the script loaded once (EVAL after NOSCRIPT)
    await until(async () => (await indexed()).length === 1);
    await redis.client().config('RESETSTAT');

    for (let i = 0; i < 100; i += 1) answers.write(`answer-${i}`, answer(60_000, productTags(i)));
    await until(async () => (await indexed()).length === 101);
    const stats = await commandStats(redis);
    const sent = ['set', 'evalsha', 'eval', 'del'].reduce((sum, name) => sum + (stats.get(name)?.calls ?? 0), 0);
    expect(sent).toBe(200);
    // Inside the script: a few calls per tag, bounded as the tags are (request/tags.ts).
    const inside = [...stats].filter(([name]) => !['set', 'evalsha', 'eval', 'zrange', 'info', 'config'].includes(name));
    expect(inside.reduce((sum, [, stat]) => sum + stat.calls, 0) / 100).toBeLessThanOrEqual(4 * 15 + 16);
  });

  it('keeps the answers within their budget: the first to expire go, and are deleted from Redis', async () => {
    const budget = 60_000;
    const answers = start(budget);
    for (let i = 0; i < 60; i += 1) {
      answers.write(`answer-${i}`, answer(60_000 + i * 1000, productTags(i)));
      await until(async () => (await indexed()).includes(`answer-${i}`));
    }
    const kept = await indexed();
    expect(await counted()).toBeLessThanOrEqual(budget);
    expect(kept.length).toBeGreaterThan(5);
    expect(kept).toEqual(Array.from({ length: kept.length }, (_, j) => `answer-${60 - kept.length + j}`));
    await until(async () => (await redis.client().keys('test:answer:*')).length === kept.length);
    // The tags of the evicted answers went with them.
    expect(await redis.client().exists(`${INDEX}tag:${productTags(0)[0]}`)).toBe(0);
    expect(await redis.client().exists(`${INDEX}tag:${productTags(59)[0]}`)).toBe(1);
  });

  it('never shares an answer that would cost more than a tenth of the budget', async () => {
    const answers = start(20_000);
    answers.write('large', answer(60_000, productTags(0)));
    answers.write('small', answer(60_000, ['cities']));
    await until(async () => (await indexed()).length === 1);
    expect([await indexed(), await redis.client().exists('test:answer:{large}')]).toEqual([['small'], 0]);
  });

  it('forgets expired answers on later writes, and a purge deletes only the live ones', async () => {
    const answers = start(64 * 1024 * 1024);
    answers.write('a', answer(1_000, ['cities']));
    await until(async () => (await indexed()).length === 1);
    const one = await counted();
    wall += 5_000; // a's freshness is over (Redis's own PX, of real time, has not passed yet)
    answers.write('b', answer(60_000, ['cities']));
    await until(async () => (await indexed()).join() === 'b');
    expect(await redis.client().smembers(`${INDEX}tag:cities`)).toEqual(['b']);
    expect(await counted()).toBe(one);

    expect(await answers.drop(['cities'])).toBe(1);
    expect(await redis.client().exists('test:answer:{b}', `${INDEX}tag:cities`)).toBe(0);
    expect([await indexed(), await counted()]).toEqual([[], 0]);
  });
});

// Private: `INFO commandstats`, by command.
async function commandStats(redis: TestRedis): Promise<Map<string, { calls: number; usec: number }>> {
  const text = await redis.client().info('commandstats');
  const stats = new Map<string, { calls: number; usec: number }>();
  for (const match of text.matchAll(/^cmdstat_([\w|]+):calls=(\d+),usec=(\d+)/gm)) stats.set(match[1]!, { calls: Number(match[2]), usec: Number(match[3]) });
  return stats;
}
