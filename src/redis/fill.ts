/**
 * One replica at a time makes what nobody has (a cache entry, a token) under the lock
 * `<key>:lock`; the others wait for its announcement (or poll), then read it. The lock holds
 * `<random> <deadline>` on Redis's clock, renewed while its holder works, and has no expiry so
 * `volatile-lru` never evicts it. With Redis down, each replica makes it alone.
 */
import { randomUUID } from 'node:crypto';
import { deadline } from '../base/clock.js';
import type { RedisConnection } from './connection.js';
import { runScript, script } from './scripts.js';

export interface SharedFill<T> {
  /** Redis key of the thing; its lock is `<key>:lock`, and announcements name `key`. */
  key: string;
  /** Life of the lock unless renewed, in ms. */
  waitMs: number;
  /** Name of the lock commands in metrics. */
  operation: string;
  /** What the fleet holds now, if it will do; `undefined` otherwise. Never rejects. */
  check(): Promise<T | undefined>;
  /** Makes the thing and stores it in Redis (best effort); its failure goes to the caller. */
  produce(): Promise<T>;
  /** Aborts a wait (the caller gave up). */
  signal?: AbortSignal;
}

/** Lock commands are patient (connection.ts): giving one up makes the fleet make the thing twice. */
const PATIENT = 'patient';

/** How often a waiter tries the lock when no announcement came, in ms. */
const POLL_MS = 50;

/** A waiter waits at most this many lock lives before making the thing alone (a holder stuck for good). */
const MAX_WAIT_LIVES = 10;

// Private: shared by the lock scripts: Redis's clock in ms, whether KEYS[1] is held, whether ARGV[1] holds it.
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
      // Held: by a live holder (it renews), or one dead less than a lock's life ago.
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

// Private: check, make if still needed, release and announce; renewed meanwhile so slow is not taken for dead.
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
