/**
 * The rate limit's buckets for a fleet (`REDIS_URL`): one bucket per client in Redis, shared by
 * every replica, so that `RATE_LIMIT_PER_MINUTE` holds for a client however many replicas its
 * requests reach. The bucket is the in-process one's (token-buckets.ts): `capacity` tokens,
 * refilled continuously over `refillMs`, `count` taken all or none, and a refusal says how long
 * until the tokens asked for are there.
 *
 * A script of our own rather than rate-limiter-flexible: its Redis limiters count in fixed windows
 * (INCRBY on a key that expires with the window), which let a client spend its budget at the end
 * of one window and again at the start of the next (twice the limit within a moment), and count a
 * refused request as spent. With Redis the limit would mean something else than without it.
 *
 * The script keeps a bucket as one number (the generic cell rate algorithm): the time at which it
 * is full again, `full_at`. A bucket `behind = full_at - now` ms from full holds
 * `capacity × (1 - behind / refillMs)` tokens; taking `count` of them costs
 * `count × refillMs / capacity` ms, and is allowed when `behind + cost <= refillMs`. The key expires
 * when the bucket is full (no key: a full bucket), and only the one key is touched, so the script
 * runs on Redis Cluster too. Time is Redis's own (`TIME`): one clock for all replicas, whose clocks
 * differ a little; a test may pass a clock instead. The state is a share of the refill time, not a
 * token count, so replicas with different limits (a rolling update) read it alike.
 *
 * Redis failing fails no request: `take` answers `undefined` (at once while Redis is down; once the
 * command failed, counted as `rate_limit`), and the caller's in-process buckets decide.
 */
import { createHash } from 'node:crypto';
import type { Clock } from '../../base/clock.js';
import type { RedisConnection } from '../../redis/connection.js';
import type { TakeResult } from './token-buckets.js';

export interface FleetBucketOptions {
  /** Keys are `<prefix>{<digest of the client>}` (scale-out.ts: `vg:v1:ratelimit:<upstream>:`). */
  prefix: string;
  /** Tokens a full bucket holds. At least 1. */
  capacity: number;
  /** Time to refill an empty bucket, in ms. */
  refillMs: number;
  /** A test's clock, whose wall face replaces Redis's time. Default: Redis's (`TIME`), shared by the fleet. */
  clock?: Clock;
}

export interface FleetBuckets {
  /**
   * Takes `count` tokens (1 to `capacity`) from `client`'s bucket in Redis, all or none: a promise
   * of the verdict, or of `undefined` when the command failed; `undefined` at once, with no
   * promise made, when Redis is not in use.
   */
  take(client: string, count: number): Promise<TakeResult | undefined> | undefined;
}

/**
 * KEYS[1] the bucket (its `full_at`, ms); ARGV[1] refillMs, ARGV[2] the cost in ms, ARGV[3] the
 * time in ms (absent: Redis's). Answers 0 when the tokens were taken, else the ms until they are
 * there. A value that is not a number reads as a full bucket, and one further than `refillMs`
 * ahead as an empty one: a corrupt value never locks a client out for longer.
 */
const TAKE = `
local refill = tonumber(ARGV[1])
local cost = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
if now == nil then
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000 + tonumber(time[2]) / 1000
end
local behind = math.min(math.max((tonumber(redis.call('GET', KEYS[1])) or now) - now, 0), refill)
if behind + cost > refill then return math.ceil(behind + cost - refill) end
redis.call('SET', KEYS[1], string.format('%.3f', now + behind + cost), 'PX', math.ceil(behind + cost))
return 0`;

export function createFleetBuckets(connection: RedisConnection, options: FleetBucketOptions): FleetBuckets {
  const { prefix, capacity, refillMs, clock } = options;
  const costMs = refillMs / capacity;
  return {
    take(client, count) {
      if (!connection.usable) return undefined;
      // Braced: Redis Cluster places the key by the part that names the client (scale-out.ts).
      const key = `${prefix}{${digest(client)}}`;
      const args = [refillMs, count * costMs, ...(clock ? [clock.wall()] : [])];
      return connection.run('rate_limit', (redis) => redis.eval(TAKE, 1, key, ...args)).then((answer) => {
        if (answer === undefined) return undefined;
        if (typeof answer !== 'number' || !Number.isInteger(answer) || answer < 0) {
          connection.failed('rate_limit');
          return undefined;
        }
        return answer === 0 ? { allowed: true } : { allowed: false, retryAfterS: Math.max(1, Math.ceil(answer / 1000)) };
      });
    },
  };
}

// Private: the client's key (`key:<fingerprint>`, `ip:<address>`) as a fixed-length name that does
// not spell out an address in Redis.
function digest(client: string): string {
  return createHash('sha256').update(client).digest('hex').slice(0, 32);
}
