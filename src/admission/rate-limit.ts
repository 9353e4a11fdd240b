/**
 * The rate limit per client (`RATE_LIMIT_PER_MINUTE`; 0 is off): a continuously refilled token
 * bucket per client (its API key, else its address); over it, 429 `RATE_LIMITED` with
 * `Retry-After`. A batch of n operations takes n − 1 more, all or none. With `REDIS_URL` the
 * buckets are the fleet's and a verdict may be a promise. A request's verdict is taken once, by
 * the first step that asks, and kept: later steps read it, never count the request again.
 */
import type { IncomingMessage } from 'node:http';
import { socketAddress, type AddressOf } from '../request/client-address.js';
import { clientKey } from '../request/current.js';
import type { GatewayRequest } from '../request/request.js';
import type { FleetBuckets } from './buckets/fleet-buckets.js';
import { createTokenBuckets, type TakeResult, type TokenBucketOptions } from './buckets/token-buckets.js';
import { refusal, type Refusal } from './refusal.js';

const MINUTE_MS = 60_000;

export interface RateLimitOptions extends Omit<TokenBucketOptions, 'capacity' | 'refillMs'> {
  /** `BATCHING_LIMIT` (0: off); a larger batch is not counted, yoga refuses it. Default: no limit. */
  batchingLimit?: number;
  /** The fleet's buckets, made for the limit's capacity and refill time in ms. Default: none. */
  shared?: (capacity: number, refillMs: number) => FleetBuckets;
  /** Where a request without an API key comes from. Default: its socket's address. */
  addressOf?: AddressOf;
}

/** A verdict: at once without Redis, a promise when the fleet's bucket decides. */
export type Verdict = TakeResult | Promise<TakeResult>;

export interface RateLimit {
  /** Whether requests are limited at all. */
  readonly on: boolean;
  /** Takes one request, with the seconds to wait when there is none; nothing kept. */
  take(client: string | undefined, req: IncomingMessage | undefined): Verdict;
  /** The verdict kept on `request`, else one taken now for its client and kept: a request is counted once. */
  arrive(request: Pick<GatewayRequest, 'client' | 'verdict'>, req: IncomingMessage | undefined): Verdict;
  /** A batch of `operations`: the n − 1 more it takes, and its refusal when they do not fit. */
  batch(client: string | undefined, req: IncomingMessage | undefined, operations: number): Refusal | undefined | Promise<Refusal | undefined>;
  /** The refusal of a request the bucket had no token for. */
  refusal(taken: TakeResult): Refusal | undefined;
}

export function createRateLimit(perMinute: number, options: RateLimitOptions = {}): RateLimit {
  if (perMinute === 0) {
    const allowed = { allowed: true } as const;
    return { on: false, take: () => allowed, arrive: () => allowed, batch: () => undefined, refusal: () => undefined };
  }
  const { batchingLimit = Number.POSITIVE_INFINITY, shared, addressOf = socketAddress, ...bucketOptions } = options;
  const buckets = createTokenBuckets({ ...bucketOptions, capacity: perMinute, refillMs: MINUTE_MS });
  const fleet = shared?.(perMinute, MINUTE_MS);
  const takeOf = (client: string, count = 1): Verdict => {
    const verdict = fleet?.take(client, count);
    return verdict === undefined ? buckets.take(client, count) : verdict.then((taken) => taken ?? buckets.take(client, count));
  };
  const take = (client: string | undefined, req: IncomingMessage | undefined) => takeOf(clientKey(client, req, addressOf));
  return {
    on: true,
    take,
    arrive(request, req) {
      if (request.verdict !== undefined) return request.verdict;
      const verdict = take(request.client, req);
      request.verdict = verdict;
      if (verdict instanceof Promise) verdict.then((taken) => (request.verdict = taken), () => undefined);
      return verdict;
    },
    batch(client, req, operations) {
      if (operations < 2 || operations > batchingLimit) return undefined;
      const asked = `a batch of ${operations} operations counts as ${operations} requests`;
      if (operations > perMinute) {
        return refusal('RATE_LIMITED', `Too many requests: ${asked}, more than the ${perMinute} per minute allowed; send fewer at once`);
      }
      const decide = (taken: TakeResult) =>
        taken.allowed ? undefined : refusal('RATE_LIMITED', `Too many requests: ${asked}, at most ${perMinute} per minute; retry in ${taken.retryAfterS} s`, retryAfter(taken.retryAfterS));
      const verdict = takeOf(clientKey(client, req, addressOf), operations - 1);
      return verdict instanceof Promise ? verdict.then(decide) : decide(verdict);
    },
    refusal: (taken) =>
      taken.allowed ? undefined : refusal('RATE_LIMITED', `Too many requests: at most ${perMinute} per minute; retry in ${taken.retryAfterS} s`, retryAfter(taken.retryAfterS)),
  };
}

function retryAfter(seconds: number): Record<string, string> {
  return { 'retry-after': String(seconds) };
}
