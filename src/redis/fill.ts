/**
 * One replica at a time: when several replicas need the same thing that nobody has (a cache
 * entry, a new upstream token), one of them makes it under a short Redis lock and the others
 * wait for it, then read what it stored.
 *
 * - The lock is `SET <key>:lock <random> NX PX <waitMs>`: it ends when its holder releases it or,
 *   if the holder died, after `waitMs`. Releasing compares the random value (Lua), so a holder
 *   that outlived its lock never releases another replica's.
 * - The holder checks once more before making anything (another replica may have finished just
 *   before it took the lock), stores the result, then releases the lock and announces the key in
 *   one script.
 * - A waiter wakes on the announcement, or every `POLL_MS` to try the lock itself (so a lost
 *   announcement or a failed holder costs little), and after `waitMs` in all stops waiting and
 *   makes the thing alone. When Redis is down, everyone makes it alone at once.
 */
import { randomUUID } from 'node:crypto';
import type { RedisConnection } from './connection.js';

export interface SharedFill<T> {
  /** Redis key of the thing; its lock is `<key>:lock`, and announcements name `key`. */
  key: string;
  /** Life of the lock, and how long the others wait for its holder before going alone, in ms. */
  waitMs: number;
  /** Name of the lock commands in metrics (`cache_lock`, `token_lock`). */
  operation: string;
  /** What the fleet holds now, if it will do; `undefined` otherwise. Never rejects. */
  check(): Promise<T | undefined>;
  /** Makes the thing and stores it in Redis (best effort); its failure goes to the caller. */
  produce(): Promise<T>;
  /** Aborts a wait (the caller gave up). */
  signal?: AbortSignal;
}

/** How often a waiter tries the lock when no announcement came, in ms. */
const POLL_MS = 50;

const RELEASE_AND_ANNOUNCE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
redis.call('PUBLISH', ARGV[2], ARGV[3])
return 1`;

/** The thing `fill` describes, made once across the replicas while Redis is up. */
export async function fillOnce<T>(connection: RedisConnection, fill: SharedFill<T>): Promise<T> {
  const watch = connection.watch(fill.key);
  try {
    const deadline = Date.now() + fill.waitMs;
    for (;;) {
      const lock = await tryLock(connection, fill);
      if (lock === 'unavailable') break;
      if (lock !== 'taken') return await underLock(connection, lock, fill);
      const left = deadline - Date.now();
      if (left <= 0) break;
      if (await watch.next(Math.min(POLL_MS, left), fill.signal)) {
        const filled = await fill.check();
        if (filled !== undefined) return filled;
      }
    }
  } finally {
    watch.stop();
  }
  return fill.produce();
}

// Private: the lock's random value when taken, else whether someone holds it or Redis is down.
async function tryLock(connection: RedisConnection, fill: SharedFill<unknown>): Promise<string | 'taken' | 'unavailable'> {
  const token = randomUUID();
  const reply = await connection.run(fill.operation, (redis) => redis.set(`${fill.key}:lock`, token, 'PX', Math.max(1, fill.waitMs), 'NX'));
  if (reply === undefined) return 'unavailable';
  return reply === null ? 'taken' : token;
}

// Private: check, make if still needed, then release and announce whatever happened.
async function underLock<T>(connection: RedisConnection, token: string, fill: SharedFill<T>): Promise<T> {
  try {
    const found = await fill.check();
    return found !== undefined ? found : await fill.produce();
  } finally {
    await connection.run(fill.operation, (redis) =>
      redis.eval(RELEASE_AND_ANNOUNCE, 1, `${fill.key}:lock`, token, connection.channel, fill.key));
  }
}
