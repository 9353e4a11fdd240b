/**
 * The async carrier of the request being served (request/request.ts), wherever the code runs on
 * its behalf, with the request id's rules and the client's key.
 *
 * The request travels in an `AsyncLocalStorage` rather than as an argument because the code that
 * counts does not know the request: the upstream client and the shared cache serve every request,
 * and a load shared in flight runs in the async context of the request that started it, so the
 * calls it makes are counted for that request, and not for those that merely joined it. The
 * door opens the context around the whole request (plugins/serving/use-request.ts does it in
 * yoga's `instrumentation.request`).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { IncomingMessage } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { Logger } from '../base/logger.js';
import type { GatewayRequest } from './request.js';
import type { AddressOf } from './client-address.js';

const storage = new AsyncLocalStorage<GatewayRequest>();

/** A client's request id is kept when it is 1–64 of these characters; anything else is replaced. */
const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/** The response header (and accepted request header) carrying the request id. */
export const REQUEST_ID_HEADER = 'x-request-id';

/** `header` when it is a safe request id, else a fresh UUID. */
export function requestIdFrom(header: string | null | undefined): string {
  return header !== null && header !== undefined && SAFE_REQUEST_ID.test(header) ? header : randomUUID();
}

/** Runs `serve` (and everything it starts) as the work of `request`. */
export function runInRequest<T>(request: GatewayRequest, serve: () => T): T {
  return storage.run(request, serve);
}

/** The request the caller works for, if any (none in background work between requests). */
export function currentRequest(): GatewayRequest | undefined {
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
        const request = storage.getStore();
        return request === undefined ? object : { requestId: request.id, ...object };
      },
    },
  });
}

/**
 * Who a client is, for the limits counted per client (the rate limit, the live subscriptions):
 * its accepted API key (`key:<fingerprint>`), else the address its request came from, as
 * `addressOf` reads it (the socket's, or `X-Forwarded-For`'s with `TRUST_PROXY`: client-address.ts).
 */
export function clientKey(client: string | undefined, req: IncomingMessage | undefined, addressOf: AddressOf): string {
  return client ?? `ip:${(req && addressOf(req)) ?? 'unknown'}`;
}
