/**
 * A GraphQL-over-SSE subscriber for tests (graphql-sse's distinct-connections mode, as yoga
 * serves it): POSTs the subscription with `Accept: text/event-stream` and collects each `next`
 * event's payload until `complete`, the stream's end, or `close()`.
 */
import { createEventLog } from './event-log.js';
import type { GraphQLResponse } from './gateway.js';

export interface SseSubscriber {
  /** Every `next` payload so far, in order. */
  readonly events: GraphQLResponse<any>[];
  /** Resolves once `count` events have arrived (at once if they have). */
  received(count: number): Promise<GraphQLResponse<any>[]>;
  /** Resolves when the server completes the stream (or it ends): true for a `complete` event. */
  readonly ended: Promise<boolean>;
  /** The HTTP status of the answer. */
  readonly status: Promise<number>;
  /** Leaves: the client disconnects. */
  close(): void;
}

export function subscribeSse(url: string, query: string, variables: Record<string, unknown> = {}, headers: Record<string, string> = {}): SseSubscriber {
  const controller = new AbortController();
  const log = createEventLog<GraphQLResponse<any>>();
  let resolveStatus!: (status: number) => void;
  const status = new Promise<number>((resolve) => (resolveStatus = resolve));
  const ended = (async () => {
    try {
      const response = await fetch(`${url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...headers },
        body: JSON.stringify({ query, variables }),
        signal: controller.signal,
      });
      resolveStatus(response.status);
      if (!response.body) return false;
      const decoder = new TextDecoder();
      let buffered = '';
      const reader = response.body.getReader();
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
        buffered += decoder.decode(chunk.value, { stream: true });
        let end: number;
        while ((end = buffered.indexOf('\n\n')) !== -1) {
          const message = buffered.slice(0, end);
          buffered = buffered.slice(end + 2);
          const event = /^event: *(.*)$/m.exec(message)?.[1];
          const data = message.split('\n').filter((line) => line.startsWith('data:')).map((line) => line.slice(5).trimStart()).join('\n');
          if (event === 'complete') return true;
          if (event === 'next' || (event === undefined && data !== '')) {
            log.add(JSON.parse(data) as GraphQLResponse<any>);
          }
        }
      }
      return false;
    } catch {
      resolveStatus(0);
      return false;
    }
  })();
  return {
    events: log.events,
    received: log.received,
    ended,
    status,
    close: () => controller.abort(),
  };
}
