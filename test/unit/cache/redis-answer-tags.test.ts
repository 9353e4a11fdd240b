/**
 * The sets of answers per tag in Redis (cache/redis-answers.ts) hold only answers still fresh: a
 * write drops the members that expired, so the set of a tag every answer carries stays as small as
 * its live answers, and a purge finds exactly those. A real Redis; the wall clock is the test's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerEtag } from '../../../src/cache/answer-codec.js';
import { createRedisAnswers } from '../../../src/cache/redis-answers.js';
import { createRedisConnection } from '../../../src/redis/connection.js';
import { startRedis, type TestRedis } from '../../helpers/redis.js';
import { until } from '../../helpers/http.js';

describe('the tag sets of shared answers', () => {
  let redis: TestRedis;
  beforeAll(async () => { redis = await startRedis(); });
  afterAll(() => redis.close());

  it('drops expired answers from a tag on the next write to it, and a purge deletes only the live ones', async () => {
    const connection = createRedisConnection({ topology: { kind: 'single', url: redis.url }, commandTimeoutMs: 1000, channel: 'test:tags' });
    let wall = 1_000_000;
    const answers = createRedisAnswers({ connection, prefix: 'test:answer:', tagPrefix: 'test:tag:', now: () => wall });
    const body = new TextEncoder().encode('{"data":{}}');
    const answer = (ttlMs: number) => ({ body, contentType: 'application/json', etag: answerEtag(body), ageMs: 0, ttlMs, tags: ['cities'] });
    const members = () => redis.client().zrange('test:tag:{cities}', '0', '-1');
    try {
      answers.write('a', answer(1_000));
      await until(async () => (await members()).length === 1);
      wall += 5_000; // a's freshness is over (Redis's own PX, of real time, has not passed yet)
      answers.write('b', answer(60_000));
      await until(async () => (await members()).join() === 'b');
      expect(await answers.drop(['cities'])).toBe(1);
      expect(await redis.client().exists('test:answer:{b}', 'test:tag:{cities}')).toBe(0);
    } finally {
      await connection.close();
    }
  });
});
