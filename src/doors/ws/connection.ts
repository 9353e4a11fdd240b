/**
 * One WebSocket as graphql-ws's server sees it, with the gateway's checks on what goes in and out.
 * In: each message is parsed once; a `subscribe` of an id still held closes with 4409, a
 * `complete` ends its operation at once. Out: a client that does not read would leave its
 * messages in our memory, so past `WS_MAX_BUFFERED_BYTES` the socket closes with 1008 and its
 * operations end at once. Keep-alive: only a pong echoing our ping's payload answers it.
 */
import { randomBytes } from 'node:crypto';
import { CloseCode } from 'graphql-ws';
import { WebSocket } from 'ws';
import type { Logger } from '../../base/logger.js';
import { createOperationRegistry, type OperationRegistry, type Registered } from './registry.js';

/** 1008 "policy violation": the client does not take what it is sent. */
const NOT_READING = 1008;
/** The longest close reason, in bytes (RFC 6455 5.5). */
const MAX_REASON_BYTES = 123;

export interface ConnectionOptions {
  logger: Logger;
  /** Bytes sent and not yet taken by the client above which it is cut off. */
  maxBufferedBytes: number;
  /** Told of each operation added (+1) and ended (−1), for the transport's count. */
  tally(change: number): void;
}

export interface Connection<T extends Registered> {
  readonly operations: OperationRegistry<T>;
  /** Whether the socket takes more: open, and its client reading (else it is closed with 1008 now). */
  usable(): boolean;
  /** Sends a message; resolves once it is written, or at once when the socket is closing. */
  send(data: string): Promise<void>;
  /** Closes the socket with `code` and ends every operation on it now. */
  shut(code: number, reason: string): void;
  /** A message received: checked, then handed to graphql-ws's `handle`. */
  receive(text: string, handle: (message: string) => Promise<void>): void;
}

export function createConnection<T extends Registered>(socket: WebSocket, options: ConnectionOptions): Connection<T> {
  const { logger, maxBufferedBytes } = options;
  const operations = createOperationRegistry<T>(() => socket.readyState === WebSocket.OPEN, options.tally);
  const writing = new Set<() => void>();
  let shutting = false;

  const shut = (code: number, reason: string) => {
    if (shutting) return;
    shutting = true;
    if (socket.readyState === WebSocket.OPEN) socket.close(code, fitting(reason));
    operations.endAll(`the socket closed (${code})`);
    for (const done of writing) done();
    writing.clear();
  };
  const usable = () => {
    if (shutting || socket.readyState !== WebSocket.OPEN) return false;
    if (socket.bufferedAmount <= maxBufferedBytes) return true;
    logger.info({ bufferedBytes: socket.bufferedAmount, operations: operations.size }, 'closing a WebSocket whose client does not read');
    shut(NOT_READING, 'The client does not read its messages');
    return false;
  };

  return {
    operations,
    usable,
    shut,
    send: (data) => new Promise<void>((resolve) => {
      if (!usable()) return resolve();
      writing.add(resolve);
      socket.send(data, () => {
        writing.delete(resolve);
        resolve();
      });
    }),
    receive(text, handle) {
      const message = parsed(text);
      const id = typeof message?.id === 'string' ? message.id : undefined;
      if (id !== undefined && message!.type === 'subscribe' && operations.has(id)) {
        return shut(CloseCode.SubscriberAlreadyExists, `Subscriber for ${id} already exists`);
      }
      if (id !== undefined && message!.type === 'complete') operations.complete(id);
      handle((message ?? text) as string).catch((error: unknown) => {
        logger.error({ err: error }, 'WebSocket message handling failed');
        shut(CloseCode.InternalServerError, 'Internal server error');
      });
    },
  };
}

/** Pings `socket` every `intervalMs` with a fresh payload, cutting it off if unanswered by the next; returns the stop. */
export function keepAlive(socket: WebSocket, intervalMs: number): () => void {
  if (!(intervalMs > 0) || !Number.isFinite(intervalMs)) return () => {};
  let awaited: Buffer | undefined;
  socket.on('pong', (data) => {
    if (awaited !== undefined && data.equals(awaited)) awaited = undefined;
  });
  const timer = setInterval(() => {
    if (awaited !== undefined) return void socket.terminate();
    awaited = randomBytes(8);
    socket.ping(awaited);
  }, intervalMs);
  return () => clearInterval(timer);
}

// Private: a message as JSON, or undefined when it is not a JSON object.
function parsed(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

// Private: a close reason that fits a close frame (ws throws on a longer one): cut at a character.
function fitting(reason: string): string {
  if (Buffer.byteLength(reason) <= MAX_REASON_BYTES) return reason;
  let cut = reason.slice(0, MAX_REASON_BYTES);
  while (Buffer.byteLength(cut) > MAX_REASON_BYTES) cut = cut.slice(0, -1);
  return cut;
}
