/**
 * A GraphQL-over-WebSocket subscriber for tests (the graphql-ws client over ws, one connection
 * per subscriber, as the SSE helper makes one request per subscriber): collects each `next`
 * payload until the server completes the operation, an `error` message, or the socket closes.
 */
import { createClient, type ClientOptions, type FormattedExecutionResult } from 'graphql-ws';
import type { IncomingHttpHeaders } from 'node:http';
import type { Socket } from 'node:net';
import WebSocket from 'ws';
import { createEventLog } from './event-log.js';

export interface WsSubscriber {
  /** Every `next` payload so far, in order. */
  readonly events: Array<FormattedExecutionResult<any, unknown>>;
  /** Resolves once `count` events have arrived (at once if they have). */
  received(count: number): Promise<Array<FormattedExecutionResult<any, unknown>>>;
  /**
   * Resolves when the operation ends: `complete` (the server completed it), the errors of an
   * `error` message, or the close event of a socket that closed under it.
   */
  readonly ended: Promise<'complete' | { errors: unknown[] } | { closed: number; reason: string }>;
  /** The close code of the connection's socket, once it closed. */
  readonly closed: Promise<number>;
  /** Ends the operation (a `complete` message), keeping the connection. */
  unsubscribe(): void;
  /** Leaves: closes the connection (1000). */
  close(): Promise<void>;
}

/** Subscribes over `wsUrl` (e.g. the harness's `wsUrl`); `options` go to graphql-ws's `createClient`. */
export function subscribeWs(
  wsUrl: string, query: string, variables: Record<string, unknown> = {}, options: Partial<ClientOptions> = {},
): WsSubscriber {
  const log = createEventLog<FormattedExecutionResult<any, unknown>>();
  let resolveClosed!: (code: number) => void;
  const closed = new Promise<number>((resolve) => (resolveClosed = resolve));
  const client = createClient({
    url: wsUrl,
    webSocketImpl: WebSocket,
    retryAttempts: 0,
    ...options,
    on: { ...options.on, closed: (event) => resolveClosed((event as { code: number }).code) },
  });
  let unsubscribe!: () => void;
  const ended = new Promise<Awaited<WsSubscriber['ended']>>((resolve) => {
    unsubscribe = client.subscribe({ query, variables }, {
      next: (result) => log.add(result),
      error: (error) => {
        if (Array.isArray(error)) return resolve({ errors: error });
        const { code, reason } = error as { code: number; reason: string };
        resolve({ closed: code, reason: String(reason) });
      },
      complete: () => resolve('complete'),
    });
  });
  return {
    events: log.events,
    received: log.received,
    ended,
    closed,
    unsubscribe: () => unsubscribe(),
    close: async () => client.dispose(),
  };
}

/** A graphql-transport-ws socket driven by hand (ws, no client library): for clients that misbehave. */
export interface RawSocket {
  readonly ws: WebSocket;
  /** Every message received, parsed, in order. */
  readonly messages: ReturnType<typeof createEventLog<RawMessage>>;
  /** Sends `messages` as frames of one write, so that they arrive together (one TCP segment). */
  sendTogether(...messages: object[]): void;
  /** The close code and reason, once the socket has closed. */
  readonly closed: Promise<{ code: number; reason: string }>;
  /** Sends one `subscribe` message. */
  subscribe(id: string, payload: { query: string; variables?: Record<string, unknown>; operationName?: string }): void;
  /** Resolves with the messages of operation `id` once one of them is its `complete` or `error`. */
  outcome(id: string): Promise<RawMessage[]>;
}

/** A message as received: `type`, and `id` and `payload` when it has them. */
export type RawMessage = { type: string; id?: string; payload?: any };

/**
 * Opens a socket to `wsUrl` with the graphql-transport-ws subprotocol and, unless `init` is
 * false, sends `connection_init` and waits for the `connection_ack`. `options` go to ws (e.g.
 * `headers`, `autoPong`).
 */
export async function openRaw(wsUrl: string, options: WebSocket.ClientOptions & { init?: boolean } = {}): Promise<RawSocket> {
  const { init = true, ...wsOptions } = options;
  const ws = new WebSocket(wsUrl, 'graphql-transport-ws', wsOptions);
  const messages = createEventLog<RawMessage>();
  ws.on('message', (data) => messages.add(JSON.parse(String(data)) as RawMessage));
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    ws.on('close', (code, reason) => resolve({ code, reason: String(reason) }));
  });
  ws.on('error', () => {}); // the close event says what happened
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('unexpected-response', (_request, response) => {
      response.resume();
      reject(new Error(`upgrade refused: ${response.statusCode}`));
    });
  });
  const socket: RawSocket = {
    ws,
    messages,
    closed,
    subscribe(id, payload) {
      ws.send(JSON.stringify({ type: 'subscribe', id, payload }));
    },
    async outcome(id) {
      const ends = (message: RawMessage) => message.id === id && (message.type === 'complete' || message.type === 'error');
      for (let seen = 0; !messages.events.some(ends); seen = messages.events.length) await messages.received(seen + 1);
      return messages.events.filter((message) => message.id === id);
    },
    sendTogether(...sent) {
      rawSocketOf(ws).write(Buffer.concat(sent.map((message) => textFrame(JSON.stringify(message)))));
    },
  };
  if (init) {
    ws.send(JSON.stringify({ type: 'connection_init' }));
    await messages.received(1);
  }
  return socket;
}

/** An upgrade's answer: the socket, once open, or the HTTP refusal (its body parsed). */
export type UpgradeAnswer = { opened: WebSocket } | { status: number; headers: IncomingHttpHeaders; body: any };

/** Asks for an upgrade to `wsUrl` (graphql-transport-ws) and says how it was answered. */
export function upgrade(wsUrl: string, options: WebSocket.ClientOptions = {}): Promise<UpgradeAnswer> {
  const ws = new WebSocket(wsUrl, 'graphql-transport-ws', options);
  ws.on('error', () => {});
  return new Promise((resolve) => {
    ws.once('open', () => resolve({ opened: ws }));
    ws.once('unexpected-response', (_request, response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body: JSON.parse(Buffer.concat(chunks).toString()) }));
    });
  });
}

/** The TCP socket under a ws client (e.g. to `pause()` it: a client that stops reading). */
export function rawSocketOf(ws: WebSocket): Socket {
  return (ws as unknown as { _socket: Socket })._socket;
}

// Private: a client's text frame (RFC 6455 5.2), masked as a client's must be, with a zero key.
function textFrame(text: string): Buffer {
  const payload = Buffer.from(text);
  const length = payload.length;
  const header = length < 126 ? Buffer.from([0x81, 0x80 | length]) : Buffer.alloc(4);
  if (length >= 126) {
    if (length > 0xffff) throw new RangeError('a test frame holds at most 65,535 bytes');
    header.writeUInt8(0x81, 0);
    header.writeUInt8(0x80 | 126, 1);
    header.writeUInt16BE(length, 2);
  }
  return Buffer.concat([header, Buffer.alloc(4), payload]);
}
