/**
 * A GraphQL-over-SSE subscriber for the live scenario, the graphql-sse protocol's distinct-
 * connections mode as graphql-yoga serves it: `POST /graphql` with `Accept: text/event-stream`,
 * then `event: next` messages (`data:` one execution result) until `event: complete`. Parsed
 * here over undici's streamed body, so that the time each message arrived is taken the moment
 * its bytes are read, and a thousand streams share one `Pool` (one connection each).
 */
import type { Pool } from 'undici';
import type { GraphQLRequest } from '../workloads/queries.js';

/** One `next` message: when it arrived (`performance.now()`), and its execution result. */
export interface SseMessage {
  at: number;
  result: { data?: unknown; errors?: Array<{ message: string; extensions?: { code?: string } }> };
}

/** How a stream ended: the server completed it, the connection closed or failed, or `close()` was called. */
export interface SseEnd {
  reason: 'complete' | 'closed' | 'error' | 'cancelled';
  /** The HTTP status or network error, for `error`. */
  detail?: string;
}

/** A subscription in progress. */
export interface SseSubscription {
  /** Resolves once the stream has ended, never rejects. */
  ended: Promise<SseEnd>;
  /** Stops listening and closes the connection. */
  close(): void;
}

/** Subscribe with `request` at `path` of `pool`'s origin; `onMessage` gets every `next` message. */
export function subscribeSse(pool: Pool, path: string, request: GraphQLRequest, onMessage: (message: SseMessage) => void): SseSubscription {
  const abort = new AbortController();
  const ended = receive(pool, path, request, onMessage, abort.signal).catch((error: unknown): SseEnd => (
    abort.signal.aborted ? { reason: 'cancelled' } : { reason: 'error', detail: String(error) }
  ));
  return { ended, close: () => abort.abort() };
}

// Private: one stream, read to its end.
async function receive(pool: Pool, path: string, request: GraphQLRequest, onMessage: (message: SseMessage) => void, signal: AbortSignal): Promise<SseEnd> {
  const { statusCode, body } = await pool.request({
    path,
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify(request),
    signal,
  });
  if (statusCode !== 200) {
    const text = await body.text();
    return { reason: 'error', detail: `HTTP ${statusCode}: ${text.slice(0, 300)}` };
  }
  // A character split across chunks waits in the decoder for the rest of its bytes.
  const decoder = new TextDecoder();
  let pending = '';
  for await (const chunk of body as AsyncIterable<Buffer>) {
    const at = performance.now();
    // Line ends as LF; a CR last of all may be half a CRLF, so it waits for the next chunk.
    pending = (pending + decoder.decode(chunk, { stream: true })).replace(/\r\n|\r(?!$)/g, '\n');
    let end: number;
    while ((end = pending.indexOf('\n\n')) !== -1) {
      const block = pending.slice(0, end);
      pending = pending.slice(end + 2);
      const { event, data } = parseBlock(block);
      if (event === 'complete') {
        body.destroy();
        return { reason: 'complete' };
      }
      if (event === 'next' && data !== undefined) onMessage({ at, result: JSON.parse(data) as SseMessage['result'] });
    }
  }
  return { reason: 'closed' };
}

// Private: one message's `event` and `data` (data lines joined by newlines); comments (`:`, the keep-alives) skipped.
function parseBlock(block: string): { event: string; data: string | undefined } {
  let event = 'message';
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  return { event, data: data.length === 0 ? undefined : data.join('\n') };
}
