/**
 * A token bucket per client: `capacity` tokens, refilled continuously over `refillMs`, taken one
 * per request (or `count`, all or none). At most `maxClients` buckets, least recently used out;
 * an idle bucket is full again after `refillMs`, so it expires then. An evicted client starts
 * full: the limit gets weaker, never stricter.
 */
import type { RateVerdict } from '../../request/request.js';
import type { Clock } from '../../base/clock.js';
import { LRUCache } from 'lru-cache';

export interface TokenBucketOptions {
  /** Tokens a full bucket holds: the burst, and the refill per `refillMs`. At least 1. */
  capacity: number;
  /** Time to refill an empty bucket, in ms. Default 60 000. */
  refillMs?: number;
  /** Buckets kept at most. Default 10 000. */
  maxClients?: number;
  /** The refill's clock (monotonic face). Required; optional only for a rate limit that is off. */
  clock?: Clock;
}

/** `retryAfterS`: whole seconds until the client has the tokens asked for (at least 1). */
export type TakeResult = RateVerdict;

export interface TokenBuckets {
  /** Takes `count` tokens (default 1, at most `capacity`) from `client`'s bucket if it holds that many, else none. */
  take(client: string, count?: number): TakeResult;
}

interface Bucket {
  tokens: number;
  /** Clock time of the last refill, in ms. */
  at: number;
}

export function createTokenBuckets(options: TokenBucketOptions): TokenBuckets {
  const { capacity } = options;
  if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`capacity must be an integer >= 1, but got: ${capacity}`);
  const refillMs = options.refillMs ?? 60_000;
  const { clock } = options;
  if (clock === undefined) throw new TypeError('createTokenBuckets: a clock is required (base/clock.ts)');
  const now = () => clock.monotonic();
  const perMs = capacity / refillMs;
  const buckets = new LRUCache<string, Bucket>({ max: options.maxClients ?? 10_000, ttl: refillMs, perf: { now } });
  return {
    take(client, count = 1) {
      if (!Number.isInteger(count) || count < 1 || count > capacity) {
        throw new RangeError(`count must be an integer from 1 to ${capacity}, but got: ${count}`);
      }
      const at = now();
      const bucket = buckets.get(client) ?? { tokens: capacity, at };
      const tokens = Math.min(capacity, bucket.tokens + (at - bucket.at) * perMs);
      const allowed = tokens >= count;
      buckets.set(client, { tokens: allowed ? tokens - count : tokens, at });
      if (allowed) return { allowed: true };
      return { allowed: false, retryAfterS: Math.max(1, Math.ceil((count - tokens) / perMs / 1000)) };
    },
  };
}
