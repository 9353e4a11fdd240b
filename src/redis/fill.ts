/**
 * One replica at a time: when several replicas need the same thing that nobody has (a cache
 * entry, a new upstream token), one of them makes it under a short Redis lock and the others
 * wait for it, then read what it stored.
 *
 * - The lock is `<key>:lock`, holding a random value and its deadline (`<random> <ms>`, on Redis's
 *   clock): it ends when its holder releases it or, if the holder died, at the deadline, `waitMs`
 *   after it was taken or last renewed; a live holder renews it every third of that while it
 *   works. Taking, renewing and releasing are scripts that read the value, and renewing and
 *   releasing compare the random value, so a holder that outlived its lock never touches
 *   another replica's.
 * - The lock key has no expiry of its own: under the `maxmemory-policy` the gateway needs
 *   (`volatile-lru`, README "Running several replicas") Redis evicts only keys that have one, so
 *   a full Redis never takes a lock from its holder. The deadline in the value does what an expiry
 *   would: a lock past it is taken over by the next replica that asks. A holder that died leaves
 *   its lock (about 100 bytes) until a replica next fills the same key.
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
import { runScript, script } from './scripts.js';

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

// Private: what the lock scripts share. Redis's clock in ms; whether the lock in KEYS[1] is held
// now (by a live deadline, or, for a lock in the format of a release before, by its expiry); and
// whether ARGV[1] is its holder.
const LOCK = `
local function now()
  local time = redis.call('TIME')
  return tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end
local function held(value)
  if not value then return false end
  local until_ms = tonumber(string.match(value, ' (%d+)$'))
  if until_ms then return until_ms > now() end
  return redis.call('PTTL', KEYS[1]) > 0
end
local function holder(value)
  return value and string.sub(value, 1, #ARGV[1] + 1) == ARGV[1] .. ' '
end
local function hold()
  redis.call('SET', KEYS[1], ARGV[1] .. ' ' .. string.format('%d', now() + tonumber(ARGV[2])))
end
`;

/** Takes the lock in KEYS[1] for ARGV[1] for ARGV[2] ms, unless it is held: 1 if taken. */
const TAKE = script(`${LOCK}
if held(redis.call('GET', KEYS[1])) then return 0 end
hold()
return 1`);

/** Renews the lock in KEYS[1] for ARGV[2] ms if ARGV[1] still holds it. */
const RENEW = script(`${LOCK}
if not holder(redis.call('GET', KEYS[1])) then return 0 end
hold()
return 1`);

/** Releases the lock in KEYS[1] if ARGV[1] holds it, and announces ARGV[3] on the channel ARGV[2]. */
const RELEASE_AND_ANNOUNCE = script(`${LOCK}
if holder(redis.call('GET', KEYS[1])) then redis.call('DEL', KEYS[1]) end
redis.call('PUBLISH', ARGV[2], ARGV[3])
return 1`);

/** 1 if the lock in KEYS[1] is held now. */
const HELD = script(`${LOCK}
return held(redis.call('GET', KEYS[1])) and 1 or 0`);

/** Whether a replica holds the lock of `key` now (its fill is under way); `undefined` when Redis could not say. */
export async function lockHeld(connection: RedisConnection, key: string, operation: string): Promise<boolean | undefined> {
  const reply = await connection.run(operation, (redis) => runScript(redis, HELD, [`${key}:lock`], []));
  return reply === undefined ? undefined : reply === 1;
}

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
  const reply = await connection.run(fill.operation, (redis) => runScript(redis, TAKE, [`${fill.key}:lock`], [token, Math.max(1, fill.waitMs)]), PATIENT);
  if (reply === undefined) return 'unavailable';
  return reply === 1 ? token : 'taken';
}

// Private: check, make if still needed, then release and announce whatever happened. The lock is
// renewed every third of its life meanwhile, so that waiters can tell a slow holder from a dead one.
async function underLock<T>(connection: RedisConnection, token: string, fill: SharedFill<T>): Promise<T> {
  const lockMs = Math.max(1, fill.waitMs);
  const renewal = setInterval(() => {
    void connection.run(fill.operation, (redis) => runScript(redis, RENEW, [`${fill.key}:lock`], [token, lockMs]), PATIENT);
  }, Math.max(1, Math.floor(lockMs / 3)));
  renewal.unref();
  try {
    const found = await fill.check();
    return found !== undefined ? found : await fill.produce();
  } finally {
    clearInterval(renewal);
    await connection.run(fill.operation, (redis) =>
      runScript(redis, RELEASE_AND_ANNOUNCE, [`${fill.key}:lock`], [token, connection.channel, fill.key]), PATIENT);
  }
}
