/**
 * A token bucket per client: `capacity` tokens, refilled continuously at `capacity` per
 * `refillMs` (per minute for the rate limit), one taken per request (or `count`, all or none).
 * A client may burst up to `capacity` requests, then gets one more each `refillMs / capacity`.
 *
 * The table is bounded: at most `maxClients` buckets, least recently used out. A bucket idle for
 * `refillMs` is full again, the same as no bucket, so it expires then (lazily: no timer keeps
 * the process alive). An evicted client starts over with a full bucket; with more active
 * clients than `maxClients` the limit is weaker, never stricter.
 */
import type { Clock } from '../../base/clock.js';
import { LRUCache } from 'lru-cache';

export interface TokenBucketOptions {
  /** Tokens a full bucket holds: the burst, and the refill per `refillMs`. At least 1. */
  capacity: number;
  /** Time to refill an empty bucket, in ms. Default 60 000. */
  refillMs?: number;
  /** Buckets kept at most. Default 10 000. */
  maxClients?: number;
  /**
   * The clock of the refill (its monotonic face). Required: optional in the type only because a
   * rate limit that is off (edge/admission/rate-limit.ts) makes no buckets and is given none.
   */
  clock?: Clock;
}

/** `retryAfterS`: whole seconds until the client has the tokens asked for (at least 1). */
export type TakeResult = { allowed: true } | { allowed: false; retryAfterS: number };

export interface TokenBuckets {
  /**
   * Takes `count` tokens (default 1) from `client`'s bucket if it holds that many, else none.
   * `count` is at most `capacity` (a larger one never fits: a RangeError).
   */
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
