/**
 * A GraphQL-over-WebSocket subscriber for tests (the graphql-ws client over ws, one connection
 * per subscriber, as the SSE helper makes one request per subscriber): collects each `next`
 * payload until the server completes the operation, an `error` message, or the socket closes.
 */
import { createClient, type ClientOptions, type FormattedExecutionResult } from 'graphql-ws';
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
