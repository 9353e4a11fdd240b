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
 * address as the socket sees it: behind a reverse proxy, every client without a key shares the
 * proxy's budget. Health checks and metrics scrapes are never limited.
 */
import type { IncomingMessage } from 'node:http';
import { createGraphQLError, type Plugin } from 'graphql-yoga';
import { clientKey, currentRequest } from '../../observability/request-record.js';
import { errorResponse } from '../serving/error-response.js';
import { createTokenBuckets, type TokenBucketOptions } from './token-buckets.js';

/** Paths never limited. */
const UNLIMITED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

export interface RateLimitOptions extends Omit<TokenBucketOptions, 'capacity'> {
  /**
   * `BATCHING_LIMIT` (0: batching off). A larger batch is not counted: yoga refuses it anyway
   * (413, or 400 with batching off), right after this plugin sees it. Default: no limit.
   */
  batchingLimit?: number;
}

export function useRateLimit(perMinute: number, options: RateLimitOptions = {}): Plugin {
  return createRateLimit(perMinute, options).plugin;
}

/** The rate limit: its plugin, and `admit` for the lean path, which counts in the same buckets. */
export interface RateLimit {
  plugin: Plugin;
  /** Takes one request from the client's bucket: false when it is empty (yoga then refuses it). */
  admit(client: string | undefined, req: IncomingMessage): boolean;
}

export function createRateLimit(perMinute: number, options: RateLimitOptions = {}): RateLimit {
  if (perMinute === 0) return { plugin: {}, admit: () => true };
  const { batchingLimit = Number.POSITIVE_INFINITY, ...bucketOptions } = options;
  const buckets = createTokenBuckets({ ...bucketOptions, capacity: perMinute });
  const admit = (client: string | undefined, req: IncomingMessage) => buckets.take(clientKey(client, req)).allowed;
  return { admit, plugin: {
    onRequest({ url, serverContext, endResponse, fetchAPI }) {
      if (UNLIMITED_PATHS.has(url.pathname)) return;
      const taken = buckets.take(clientOf(serverContext));
      if (taken.allowed) return;
      markRejected();
      const message = `Too many requests: at most ${perMinute} per minute; retry in ${taken.retryAfterS} s`;
      endResponse(errorResponse(fetchAPI, 429, { message, code: 'RATE_LIMITED' }, { 'retry-after': String(taken.retryAfterS) }));
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
          const taken = buckets.take(clientOf(serverContext), operations - 1);
          if (taken.allowed) return;
          markRejected();
          const message = `Too many requests: a batch of ${operations} operations counts as ${operations} requests, at most ${perMinute} per minute; retry in ${taken.retryAfterS} s`;
          throw rateLimited(message, { 'retry-after': String(taken.retryAfterS) });
        },
      };
    },
  } };
}

// Private: the request's client (yoga's node adapter puts the IncomingMessage in `req`).
function clientOf(serverContext: unknown): string {
  return clientKey(currentRequest()?.client, (serverContext as { req?: IncomingMessage }).req);
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
