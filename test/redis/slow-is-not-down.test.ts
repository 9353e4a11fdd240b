/**
 * Slow is not down: a replica whose event loop is held up (a large answer, a saturated core)
 * must not take its own lag for a Redis outage. Redis answers at once; this process reads the
 * answer late.
 */
import { Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { bounded, createRedisConnection, type RedisConnection } from '../../src/redis/connection.js';
import { startRedis, type TestRedis } from '../helpers/redis.js';

// Private: keeps this process's event loop busy for `ms`, as a large answer would.
function holdEventLoop(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // busy: no timer, no socket is served meanwhile
  }
}

// Private: holds the event loop for 1.5 s right after the first write to a socket that `matches`
// (a Redis command on its way): Redis answers at once, and the answer waits unread until the
// loop is free, after the command's timer is due. Returns what undoes the hook.
function holdAfterWriting(matches: (data: string) => boolean): () => void {
  const write = Socket.prototype.write;
  let held = false;
  Socket.prototype.write = function (this: Socket, ...args: Parameters<Socket['write']>) {
    const written = write.apply(this, args);
    if (!held && matches(String(args[0]))) {
      held = true;
      holdEventLoop(1500);
    }
    return written;
  } as Socket['write'];
  return () => {
    Socket.prototype.write = write;
  };
}

describe('a command bound that tells a busy replica from a slow Redis', () => {
  let redis: TestRedis;
  let connection: RedisConnection | undefined;
  beforeAll(async () => { redis = await startRedis(); });
  afterAll(() => redis.close());
  afterEach(() => connection?.close());

  it('answers a command whose reply waited unread while the event loop was held up for 1.5 s, counting no failure', async () => {
    const failures: string[] = [];
    connection = createRedisConnection({ url: redis.url, commandTimeoutMs: 1000, channel: 'test', onError: (operation) => failures.push(operation) });
    await redis.client().set('slow-not-down', 'here');
    expect(await connection.run('warm', (r) => r.ping())).toBe('PONG');
    const release = holdAfterWriting((data) => data.includes('slow-not-down'));
    const answer = connection.run('read', (r) => r.get('slow-not-down'));
    expect(await answer).toBe('here');
    release();
    expect(failures).toEqual([]);
    expect(connection.up).toBe(true);
  });

  it('still gives up on a Redis that does not answer, after one bound when this process is not busy', async () => {
    const settled = bounded(new Promise<never>(() => {}), 200);
    await expect(settled).rejects.toThrow('Redis did not answer within 200 ms');
  });
});
