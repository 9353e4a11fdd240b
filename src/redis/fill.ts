/**
 * One replica at a time: when several replicas need the same thing that nobody has (a cache
 * entry, a new upstream token), one of them makes it under a short Redis lock and the others
 * wait for it, then read what it stored.
 *
 * - The lock is `SET <key>:lock <random> NX PX <waitMs>`: it ends when its holder releases it or,
 *   if the holder died, after `waitMs`; a live holder renews it every third of that while it
 *   works. Releasing and renewing compare the random value (Lua), so a holder that outlived its
 *   lock never touches another replica's.
 * - The holder checks once more before making anything (another replica may have finished just
 *   before it took the lock), stores the result, then releases the lock and announces the key in
 *   one script.
 * - A waiter wakes on the announcement, or every `POLL_MS` to try the lock itself (so a lost
 *   announcement or a failed holder costs little). It waits while the lock is held, however long
 *   a busy holder takes (up to `MAX_WAIT_LIVES` lock lives): a dead holder's lock runs out within
 *   `waitMs`, and a waiter takes it. When Redis is down, everyone makes it alone at once.
 */
import { randomUUID } from 'node:crypto';
import { deadline } from '../base/clock.js';
import type { RedisConnection } from './connection.js';

export interface SharedFill<T> {
  /** Redis key of the thing; its lock is `<key>:lock`, and announcements name `key`. */
  key: string;
  /** Life of the lock unless renewed, and how long the others wait for a holder they no longer see, in ms. */
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

/**
 * Lock commands are patient (connection.ts): a lock command given up on sends this replica alone,
 * and the fleet makes the thing twice.
 */
const PATIENT = 'patient';

/** How often a waiter tries the lock when no announcement came, in ms. */
const POLL_MS = 50;

/**
 * However long a holder keeps its lock alive, a waiter waits at most this many lock lives in all
 * before making the thing alone: a guard against a holder stuck for good.
 */
const MAX_WAIT_LIVES = 10;

/** Renews the lock in KEYS[1] for ARGV[2] ms if ARGV[1] still holds it. */
const RENEW = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0`;

const RELEASE_AND_ANNOUNCE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
redis.call('PUBLISH', ARGV[2], ARGV[3])
return 1`;

/** The thing `fill` describes, made once across the replicas while Redis is up. */
export async function fillOnce<T>(connection: RedisConnection, fill: SharedFill<T>): Promise<T> {
  const watch = connection.watch(fill.key);
  const givenUp = deadline(MAX_WAIT_LIVES * fill.waitMs);
  try {
    for (;;) {
      const lock = await tryLock(connection, fill);
      if (lock === 'unavailable') break;
      if (lock !== 'taken') return await underLock(connection, lock, fill);
      // Held: by a holder that is alive (it renews the lock while it works, however slowly a busy
      // replica makes the thing), or that died less than a lock's life ago. Slow is not dead.
      if (givenUp.passed) break;
      if (await watch.next(Math.min(POLL_MS, fill.waitMs), fill.signal)) {
        const filled = await fill.check();
        if (filled !== undefined) return filled;
      }
    }
  } finally {
    givenUp.cancel();
    watch.stop();
  }
  return fill.produce();
}

// Private: the lock's random value when taken, else whether someone holds it or Redis is down.
async function tryLock(connection: RedisConnection, fill: SharedFill<unknown>): Promise<string | 'taken' | 'unavailable'> {
  const token = randomUUID();
  const reply = await connection.run(fill.operation, (redis) => redis.set(`${fill.key}:lock`, token, 'PX', Math.max(1, fill.waitMs), 'NX'), PATIENT);
  if (reply === undefined) return 'unavailable';
  return reply === null ? 'taken' : token;
}

// Private: check, make if still needed, then release and announce whatever happened. The lock is
// renewed every third of its life meanwhile, so that waiters can tell a slow holder from a dead one.
async function underLock<T>(connection: RedisConnection, token: string, fill: SharedFill<T>): Promise<T> {
  const lockMs = Math.max(1, fill.waitMs);
  const renewal = setInterval(() => {
    void connection.run(fill.operation, (redis) => redis.eval(RENEW, 1, `${fill.key}:lock`, token, lockMs), PATIENT);
  }, Math.max(1, Math.floor(lockMs / 3)));
  renewal.unref();
  try {
    const found = await fill.check();
    return found !== undefined ? found : await fill.produce();
  } finally {
    clearInterval(renewal);
    await connection.run(fill.operation, (redis) =>
      redis.eval(RELEASE_AND_ANNOUNCE, 1, `${fill.key}:lock`, token, connection.channel, fill.key), PATIENT);
  }
}
