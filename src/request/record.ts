/**
 * What the gateway knows about the HTTP request being served, wherever the code runs on its
 * behalf: its id, its child logger, and the counts its log line reports (upstream calls, cache
 * lookups, error codes).
 *
 * The record travels in an `AsyncLocalStorage` rather than as an argument because the code that
 * counts does not know the request: the upstream client and the shared cache serve every request,
 * and a load shared in flight runs in the async context of the request that started it, so the
 * calls it makes are counted for that request, and not for those that merely joined it. The
 * request-log plugin opens the context around the whole request (yoga's `instrumentation.request`).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { IncomingMessage } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { Logger } from '../base/logger.js';
import type { AddressOf } from './client-address.js';

export interface RequestRecord {
  /** The request id: the client's valid `x-request-id`, or a generated UUID. */
  readonly id: string;
  /** `performance.now()` when the request arrived, in ms. */
  readonly startedAt: number;
  /** A child logger whose lines carry `requestId`. */
  readonly logger: Logger;
  /** Writes the request's own line (info), as `logger` would, without making a child logger for it. */
  logLine(fields: Record<string, unknown>, message: string): void;
  /** A GraphQL request (its path is the GraphQL endpoint, and it is not the GraphiQL page). */
  graphql: boolean;
  /** Who the client is, once an API key was accepted: `key:<fingerprint>`. */
  client: string | undefined;
  /** Why the gateway refused the request before GraphQL ran: `unauthenticated`, `rate_limited`. */
  rejectedAs: string | undefined;
  /** Names of the operations executed (one, or several in a batch); `anonymous` for unnamed ones. */
  readonly operations: string[];
  /** The operation name the client sent (`operationName`), when it is a valid GraphQL name. */
  requestedOperation: string | undefined;
  /** API call attempts sent upstream on this request's behalf (retries included). */
  upstreamCalls: number;
  cacheHits: number;
  cacheMisses: number;
  cacheStale: number;
  /** When the first of the data this request read stops being fresh (the shared cache's clock, ms). */
  dataExpiresAt: number;
  /** Whether the whole answer came from the response cache (`hit`) or had to be made (`miss`). */
  responseCache: 'hit' | 'miss' | undefined;
  /** `extensions.code` of every error in the response. */
  readonly errorCodes: Set<string>;
}

const storage = new AsyncLocalStorage<RequestRecord>();

/** A client's request id is kept when it is 1–64 of these characters; anything else is replaced. */
const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/** The response header (and accepted request header) carrying the request id. */
export const REQUEST_ID_HEADER = 'x-request-id';

/** `header` when it is a safe request id, else a fresh UUID. */
export function requestIdFrom(header: string | null | undefined): string {
  return header !== null && header !== undefined && SAFE_REQUEST_ID.test(header) ? header : randomUUID();
}

/** A record for a request that just arrived. */
export function createRequestRecord(id: string, logger: Logger): RequestRecord {
  // The child logger is made when first used: most requests log one line, or none.
  let child: Logger | undefined;
  return {
    id,
    startedAt: performance.now(),
    get logger() {
      return (child ??= logger.child({ requestId: id }));
    },
    logLine: (fields, message) => (child ?? logger).info(child ? fields : { requestId: id, ...fields }, message),
    graphql: false,
    client: undefined,
    rejectedAs: undefined,
    operations: [],
    requestedOperation: undefined,
    upstreamCalls: 0,
    cacheHits: 0,
    cacheMisses: 0,
    cacheStale: 0,
    dataExpiresAt: Number.POSITIVE_INFINITY,
    responseCache: undefined,
    errorCodes: new Set(),
  };
}

/** Runs `serve` (and everything it starts) as the work of `record`'s request. */
export function runInRequest<T>(record: RequestRecord, serve: () => T): T {
  return storage.run(record, serve);
}

/** The record of the request the caller works for, if any (none in background work between requests). */
export function currentRequest(): RequestRecord | undefined {
  return storage.getStore();
}

/**
 * `logger` for components shared by all requests (upstream client, token manager, cache): a line
 * logged on a request's behalf carries that request's `requestId`.
 */
export function withRequestIds(logger: Logger): Logger {
  return logger.child({}, {
    formatters: {
      log(object) {
        const record = storage.getStore();
        return record === undefined ? object : { requestId: record.id, ...object };
      },
    },
  });
}

/**
 * Whether a request's answer is one operation, with no error and nothing stale: what the response
 * cache may store and what HTTP caches may keep (each adds its own conditions).
 */
export function answeredWhole(record: RequestRecord): boolean {
  return record.operations.length === 1 && record.errorCodes.size === 0 && record.cacheStale === 0;
}

/**
 * Who a client is, for the limits counted per client (the rate limit, the live subscriptions):
 * its accepted API key (`key:<fingerprint>`), else the address its request came from, as
 * `addressOf` reads it (the socket's, or `X-Forwarded-For`'s with `TRUST_PROXY`: client-address.ts).
 */
export function clientKey(client: string | undefined, req: IncomingMessage | undefined, addressOf: AddressOf): string {
  return client ?? `ip:${(req && addressOf(req)) ?? 'unknown'}`;
}
