/**
 * The rate limit's buckets for a fleet (`REDIS_URL`): one bucket per client in Redis, shared by
 * every replica, as the in-process ones behave (token-buckets.ts). A bucket is one key holding the
 * time it is full again (GCRA), timed by Redis's `TIME`. If Redis fails, `take` answers `undefined`.
 */
import { createHash } from 'node:crypto';
import type { Clock } from '../../base/clock.js';
import type { RedisConnection } from '../../redis/connection.js';
import type { TakeResult } from './token-buckets.js';

export interface FleetBucketOptions {
  /** Keys are `<prefix>{<digest of the client>}`. */
  prefix: string;
  /** Tokens a full bucket holds. At least 1. */
  capacity: number;
  /** Time to refill an empty bucket, in ms. */
  refillMs: number;
  /** A test's clock, whose wall face replaces Redis's `TIME`. Default: Redis's. */
  clock?: Clock;
}

export interface FleetBuckets {
  /** Takes `count` tokens from `client`'s bucket, all or none; `undefined` when Redis failed or is not in use. */
  take(client: string, count: number): Promise<TakeResult | undefined> | undefined;
}

/**
 * KEYS[1] the bucket (`full_at`, ms); ARGV refillMs, cost in ms, the time (absent: Redis's).
 * Answers 0 when taken, else the ms to wait; a corrupt value never locks a client out for longer.
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

// Private: the client's key as a fixed-length name that does not spell out an address in Redis.
function digest(client: string): string {
  return createHash('sha256').update(client).digest('hex').slice(0, 32);
}
