/**
 * Slow is not down: a replica whose event loop is held up (a large answer, a core shared with
 * other replicas) must not take its own lag for a Redis outage. Redis answers at once here; this
 * process reads the answer late.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../../src/base/clock.js';
import { bounded } from '../../../src/redis/bounded.js';
import { createRedisConnection, type RedisConnection } from '../../../src/redis/connection.js';
import { createRedisTokenStore } from '../../../src/upstream/token/redis-store.js';
import { holdAfterWriting } from '../../helpers/hold-event-loop.js';
import { startRedis, type TestRedis } from '../../helpers/redis.js';

describe('a command bound that tells a busy replica from a slow Redis', () => {
  let redis: TestRedis;
  const connections: RedisConnection[] = [];
  const connect = (options: { commandTimeoutMs: number; failures?: string[]; pauseAfterTimeoutMs?: number }) => {
    const connection = createRedisConnection({
      topology: { kind: 'single', url: redis.url },
      channel: 'test',
      onError: (operation) => options.failures?.push(operation),
      ...options,
    });
    connections.push(connection);
    return connection;
  };
  beforeAll(async () => { redis = await startRedis(); });
  afterAll(() => redis.close());
  afterEach(async () => {
    await Promise.all(connections.splice(0).map((connection) => connection.close()));
    redis.resume(); // harmless when running
  });

  it('reads an answer that waited unread while the event loop was held up for 1.5 s, counting no failure', async () => {
    const failures: string[] = [];
    const connection = connect({ commandTimeoutMs: 1000, failures });
    await redis.client().set('slow-not-down', 'here');
    expect(await connection.run('warm', (r) => r.ping())).toBe('PONG');
    const release = holdAfterWriting((data) => data.includes('slow-not-down'), 1500);
    try {
      expect(await connection.run('read', (r) => r.get('slow-not-down'))).toBe('here');
    } finally {
      release();
    }
    expect(failures).toEqual([]);
    expect(connection.up).toBe(true);
  });

  it('still gives up on an answer that has not come, after one bound', async () => {
    await expect(bounded(new Promise<never>(() => {}), 200)).rejects.toThrow('Redis did not answer within 200 ms');
  });

  it('runs patient commands (the token, the locks) while a timed-out cache read keeps Redis out of use for the rest, until one of them times out', async () => {
    const failures: string[] = [];
    const connection = connect({ commandTimeoutMs: 200, failures, pauseAfterTimeoutMs: 600_000 });
    expect(await connection.run('warm', (r) => r.ping())).toBe('PONG');
    redis.pause(); // a stalled server: the read gets no answer within its bound
    expect(await connection.run('cache_read', (r) => r.get('anything'))).toBeUndefined();
    redis.resume();
    expect(failures).toEqual(['cache_read']);
    expect(connection.up).toBe(false); // paused: cache reads and writes skip Redis a while
    expect(await connection.run('cache_read', (r) => r.ping())).toBeUndefined();
    expect(connection.reachable).toBe(true);
    expect(await connection.run('token_read', (r) => r.ping(), 'patient')).toBe('PONG');
    // A Redis that does not answer patient commands either (3 bounds) is out of use for them too:
    // a hung Redis costs the token path one long bound, not one per command.
    redis.pause();
    expect(await connection.run('token_read', (r) => r.get('anything'), 'patient')).toBeUndefined();
    redis.resume();
    expect(connection.reachable).toBe(false);
    expect(await connection.run('token_lock', (r) => r.ping(), 'patient')).toBeUndefined();
    expect(failures).toEqual(['cache_read', 'token_read']);
  });

  it('fetches one token for two replicas even while one of them has Redis paused after a timeout', async () => {
    const paused = connect({ commandTimeoutMs: 200, pauseAfterTimeoutMs: 600_000 });
    const other = connect({ commandTimeoutMs: 200 });
    expect(await paused.run('warm', (r) => r.ping())).toBe('PONG');
    expect(await other.run('warm', (r) => r.ping())).toBe('PONG');
    redis.pause();
    await paused.run('cache_read', (r) => r.get('anything'));
    redis.resume();
    expect(paused.up).toBe(false);

    let requests = 0;
    const request = async () => {
      requests += 1;
      await new Promise((resolve) => setTimeout(resolve, 100)); // the token endpoint's round trip
      return { value: `token-${requests}`, usedUpAt: Date.now() + 60_000, expiresAt: Date.now() + 60_000 };
    };
    const stores = [paused, other].map((connection) => createRedisTokenStore({ connection, key: 'vg:test:token', waitMs: 30_000, clock: systemClock }));
    const tokens = await Promise.all(stores.map((store) => store.refresh(request, undefined)));
    expect(requests).toBe(1);
    expect(tokens.map((token) => token.value)).toEqual(['token-1', 'token-1']);
  });
});
