/**
 * One replica at a time (redis/fill.ts), with two connections standing for two replicas: a holder
 * that is slow is waited for; one that died is taken over. The lock has no expiry (a full Redis,
 * evicting only keys with one, never takes it): its deadline is in its value.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createRedisConnection, type RedisConnection } from '../../../src/redis/connection.js';
import { fillOnce } from '../../../src/redis/fill.js';
import { startRedis, type TestRedis } from '../../helpers/redis.js';

const WAIT_MS = 1500;

describe('a fill made once across replicas', () => {
  let redis: TestRedis;
  const connections: RedisConnection[] = [];
  const replica = () => {
    const connection = createRedisConnection({ topology: { kind: 'single', url: redis.url }, commandTimeoutMs: 1000, channel: 'test:filled' });
    connections.push(connection);
    return connection;
  };
  beforeAll(async () => { redis = await startRedis(); });
  afterAll(() => redis.close());
  afterEach(async () => {
    await Promise.all(connections.splice(0).map((connection) => connection.close()));
    await redis.client().flushall();
  });

  // Private: a thing kept in this process, standing for what the holder stores in Redis.
  function thing(makeMs: number) {
    let stored: string | undefined;
    let made = 0;
    return {
      get made() { return made; },
      fill: (connection: RedisConnection) => fillOnce(connection, {
        key: 'test:thing',
        waitMs: WAIT_MS,
        operation: 'cache_lock',
        check: async () => stored,
        produce: async () => {
          made += 1;
          await new Promise((resolve) => setTimeout(resolve, makeMs));
          return (stored = `made by #${made}`);
        },
      }),
    };
  }

  it('waits for a holder that takes three lock lives to make the thing, and makes nothing itself', async () => {
    const slow = thing(3 * WAIT_MS);
    const [a, b] = [replica(), replica()];
    const first = slow.fill(a);
    await until(async () => (await redis.client().exists('test:thing:lock')) === 1);
    const second = slow.fill(b);
    expect(await Promise.all([first, second])).toEqual(['made by #1', 'made by #1']);
    expect(slow.made).toBe(1);
  }, 30_000);

  it('takes over from a holder that died: its lock runs out within one life', async () => {
    await redis.client().set('test:thing:lock', 'a replica that died', 'PX', WAIT_MS);
    const quick = thing(0);
    expect(await quick.fill(replica())).toBe('made by #1');
    expect(quick.made).toBe(1);
  }, 30_000);

  it('holds its lock without an expiry, its deadline on Redis\'s clock in the value, and a dead holder\'s ends there', async () => {
    const slow = thing(WAIT_MS);
    const holding = slow.fill(replica());
    await until(async () => (await redis.client().exists('test:thing:lock')) === 1);
    const [value, pttl, [seconds, micros]] = await Promise.all([
      redis.client().get('test:thing:lock'), redis.client().pttl('test:thing:lock'), redis.client().time(),
    ]);
    expect(pttl).toBe(-1);
    const deadline = Number(/^[0-9a-f-]{36} (\d+)$/.exec(value!)?.[1]);
    const now = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    expect(deadline).toBeGreaterThan(now);
    expect(deadline).toBeLessThanOrEqual(now + WAIT_MS);
    expect(await holding).toBe('made by #1');
    expect(await redis.client().exists('test:thing:lock')).toBe(0);

    // A holder that died: its lock stays, and is taken over once its deadline has passed.
    await redis.client().set('test:thing:lock', `a-replica-that-died ${now + WAIT_MS}`);
    const quick = thing(0);
    expect(await quick.fill(replica())).toBe('made by #1');
    expect(quick.made).toBe(1);
  }, 30_000);
});

// Private: resolves once `check` holds, polling every 10 ms (at most 10 s).
async function until(check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met within 10 s');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
