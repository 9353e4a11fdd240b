/**
 * Rate limiting per client (`RATE_LIMIT_PER_MINUTE`; 0 is off): a token bucket per client
 * holding the per-minute budget, refilled continuously (token-buckets.ts). A request over the
 * budget gets 429 with `Retry-After` (seconds) and a GraphQL-shaped `RATE_LIMITED` error.
 *
 * The client is its API key when one was accepted (use-api-keys.ts runs first), else its IP
 * address as the socket sees it: behind a reverse proxy, every client without a key shares the
 * proxy's budget. Health checks and metrics scrapes are never limited.
 */
import type { IncomingMessage } from 'node:http';
import type { Plugin } from 'graphql-yoga';
import { currentRequest } from '../../observability/request-record.js';
import { errorResponse } from '../serving/error-response.js';
import { createTokenBuckets, type TokenBucketOptions } from './token-buckets.js';

/** Paths never limited. */
const UNLIMITED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

export function useRateLimit(perMinute: number, options: Omit<TokenBucketOptions, 'capacity'> = {}): Plugin {
  if (perMinute === 0) return {};
  const buckets = createTokenBuckets({ ...options, capacity: perMinute });
  return {
    onRequest({ url, serverContext, endResponse, fetchAPI }) {
      if (UNLIMITED_PATHS.has(url.pathname)) return;
      const record = currentRequest();
      const client = record?.client ?? `ip:${remoteAddressOf(serverContext)}`;
      const taken = buckets.take(client);
      if (taken.allowed) return;
      if (record !== undefined) {
        record.rejectedAs = 'rate_limited';
        record.errorCodes.add('RATE_LIMITED');
      }
      const message = `Too many requests: at most ${perMinute} per minute; retry in ${taken.retryAfterS} s`;
      endResponse(errorResponse(fetchAPI, 429, { message, code: 'RATE_LIMITED' }, { 'retry-after': String(taken.retryAfterS) }));
    },
  };
}

// Private: node's socket address (yoga's node adapter puts the IncomingMessage in `req`).
function remoteAddressOf(serverContext: unknown): string {
  return (serverContext as { req?: IncomingMessage }).req?.socket.remoteAddress ?? 'unknown';
}
