/**
 * Rate limiting per client (`RATE_LIMIT_PER_MINUTE`; 0 is off): a token bucket per client
 * holding the per-minute budget, refilled continuously (token-buckets.ts). A request over the
 * budget gets 429 with `Retry-After` (seconds) and a GraphQL-shaped `RATE_LIMITED` error.
 *
 * Every request counts one when it arrives, the GraphiQL page included (put its plugin after
 * this one). A batch (`BATCHING_LIMIT`) counts one per operation: once its body is parsed, a
 * batch of n takes n − 1 more, all or none. A batch that does not fit is refused whole with 429
 * (the one its arrival took stays spent), never run in part: a client retries a whole request
 * after `Retry-After`, not the operations a partial answer left out. A batch of more operations
 * than the per-minute budget can never fit, and says so (no `Retry-After`).
 *
 * The client is its API key when one was accepted (use-api-keys.ts runs first), else its IP
 * address: the socket's, or with `TRUST_PROXY` the one the trusted proxies name in
 * `X-Forwarded-For` (request/client-address.ts). Health checks and metrics scrapes are
 * never limited.
 *
 * With `REDIS_URL` the buckets are the fleet's, in Redis (fleet-buckets.ts): the limit holds for
 * a client across all replicas, and the verdict comes back as a promise. While Redis is down, or a
 * command fails, the in-process buckets decide (each replica limits on its own); without Redis
 * every verdict is immediate, and no promise is made.
 */
import type { IncomingMessage } from 'node:http';
import { createGraphQLError, type Plugin } from 'graphql-yoga';
import { socketAddress, type AddressOf } from '../../request/client-address.js';
import { clientKey, currentRequest } from '../../request/record.js';
import { errorResponse } from '../serving/error-response.js';
import type { FleetBuckets } from '../../edge/rate-limit/fleet-buckets.js';
import { createTokenBuckets, type TakeResult, type TokenBucketOptions } from '../../edge/rate-limit/token-buckets.js';

/** Paths never limited. */
const UNLIMITED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);
const MINUTE_MS = 60_000;

export interface RateLimitOptions extends Omit<TokenBucketOptions, 'capacity' | 'refillMs'> {
  /**
   * `BATCHING_LIMIT` (0: batching off). A larger batch is not counted: yoga refuses it anyway
   * (413, or 400 with batching off), right after this plugin sees it. Default: no limit.
   */
  batchingLimit?: number;
  /**
   * The fleet's buckets (`REDIS_URL`: fleet-buckets.ts), made for the limit's capacity and refill
   * time in ms; the in-process buckets decide whenever they do not answer. Default: none.
   */
  shared?: (capacity: number, refillMs: number) => FleetBuckets;
  /** Where a request without an API key comes from (`TRUST_PROXY`). Default: its socket's address. */
  addressOf?: AddressOf;
}

export function useRateLimit(perMinute: number, options: RateLimitOptions = {}): Plugin {
  return createRateLimit(perMinute, options).plugin;
}

/** The rate limit: its plugin, and `admit` for the lean path and the WebSocket, which count in the same buckets. */
export interface RateLimit {
  plugin: Plugin;
  /**
   * Takes one request from the client's bucket: whether there was one; a promise of it when the
   * fleet's bucket in Redis decides. The verdict is kept for `req`: a request the lean path then
   * hands to yoga is not counted again there, and a refused one gets the plugin's 429.
   */
  admit(client: string | undefined, req: IncomingMessage): boolean | Promise<boolean>;
  /** As `admit`, with the seconds until the bucket has one when it has none (a WebSocket upgrade's 429 says them), and nothing kept. */
  take(client: string | undefined, req: IncomingMessage): TakeResult | Promise<TakeResult>;
}

type Verdict = TakeResult | Promise<TakeResult>;

export function createRateLimit(perMinute: number, options: RateLimitOptions = {}): RateLimit {
  if (perMinute === 0) return { plugin: {}, admit: () => true, take: () => ({ allowed: true }) };
  const { batchingLimit = Number.POSITIVE_INFINITY, shared, addressOf = socketAddress, ...bucketOptions } = options;
  const buckets = createTokenBuckets({ ...bucketOptions, capacity: perMinute, refillMs: MINUTE_MS });
  const fleet = shared?.(perMinute, MINUTE_MS);
  const take = (client: string, count = 1): Verdict => {
    const verdict = fleet?.take(client, count);
    return verdict === undefined ? buckets.take(client, count) : verdict.then((taken) => taken ?? buckets.take(client, count));
  };
  // Verdicts reached for requests the lean path handed to yoga (a WeakMap: one never read goes with its request).
  const verdicts = new WeakMap<IncomingMessage, TakeResult>();
  const keep = (req: IncomingMessage, taken: TakeResult) => {
    verdicts.set(req, taken);
    return taken.allowed;
  };
  const clientOf = (serverContext: unknown) => clientKey(currentRequest()?.client, requestOf(serverContext), addressOf);
  return {
    take: (client, req) => take(clientKey(client, req, addressOf)),
    admit(client, req) {
      const verdict = take(clientKey(client, req, addressOf));
      return verdict instanceof Promise ? verdict.then((taken) => keep(req, taken)) : keep(req, verdict);
    },
    plugin: {
      onRequest({ url, serverContext, endResponse, fetchAPI }) {
        if (UNLIMITED_PATHS.has(url.pathname)) return;
        const refuse = (taken: TakeResult) => {
          if (taken.allowed) return;
          markRejected();
          const message = `Too many requests: at most ${perMinute} per minute; retry in ${taken.retryAfterS} s`;
          endResponse(errorResponse(fetchAPI, 429, { message, code: 'RATE_LIMITED' }, { 'retry-after': String(taken.retryAfterS) }));
        };
        const verdict = keptVerdict(verdicts, requestOf(serverContext)) ?? take(clientOf(serverContext));
        return verdict instanceof Promise ? verdict.then(refuse) : refuse(verdict);
      },
      onRequestParse({ serverContext }) {
        return {
          onRequestParseDone({ requestParserResult }) {
            if (!Array.isArray(requestParserResult)) return;
            const operations = requestParserResult.length;
            if (operations < 2 || operations > batchingLimit) return;
            if (operations > perMinute) {
              markRejected();
              throw rateLimited(`Too many requests: a batch of ${operations} operations counts as ${operations} requests, more than the ${perMinute} per minute allowed; send fewer at once`);
            }
            const refuse = (taken: TakeResult) => {
              if (taken.allowed) return;
              markRejected();
              const message = `Too many requests: a batch of ${operations} operations counts as ${operations} requests, at most ${perMinute} per minute; retry in ${taken.retryAfterS} s`;
              throw rateLimited(message, { 'retry-after': String(taken.retryAfterS) });
            };
            const verdict = take(clientOf(serverContext), operations - 1);
            return verdict instanceof Promise ? verdict.then(refuse) : refuse(verdict);
          },
        };
      },
    },
  };
}

// Private: the verdict the lean path reached for this request, once (yoga asks once per request).
function keptVerdict(verdicts: WeakMap<IncomingMessage, TakeResult>, req: IncomingMessage | undefined): TakeResult | undefined {
  const taken = req && verdicts.get(req);
  if (taken !== undefined) verdicts.delete(req!);
  return taken;
}

// Private: the request (yoga's node adapter puts the IncomingMessage in `req`).
function requestOf(serverContext: unknown): IncomingMessage | undefined {
  return (serverContext as { req?: IncomingMessage }).req;
}

function markRejected(): void {
  const record = currentRequest();
  if (record === undefined) return;
  record.rejectedAs = 'rate_limited';
  record.errorCodes.add('RATE_LIMITED');
}

// Private: a refusal after parsing, when `endResponse` is no longer offered: yoga answers a thrown
// error with its `http` status and headers, in the same `{ errors: [...] }` shape.
function rateLimited(message: string, headers: Record<string, string> = {}) {
  return createGraphQLError(message, { extensions: { code: 'RATE_LIMITED', http: { status: 429, headers } } });
}
