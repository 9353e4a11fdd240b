/**
 * The async carrier of the request being served, for code shared by every request that counts
 * on its behalf (upstream client, shared cache); plus the request id's rules and the client's key.
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

/** `logger` for components shared by all requests: a line logged on a request's behalf carries its `requestId`. */
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

/** Who a client is, for per-client limits: its accepted API key, else its address as `addressOf` reads it. */
export function clientKey(client: string | undefined, req: IncomingMessage | undefined, addressOf: AddressOf): string {
  return client ?? `ip:${(req && addressOf(req)) ?? 'unknown'}`;
}
