/**
 * A result written in parts: as server-sent events by yoga's own processor, or as
 * `multipart/mixed` parts framed as yoga frames them (its multipart processor is not exported),
 * each part's JSON made by yoga's serialiser. A single result is one part.
 */
import type { ExecutionResult } from 'graphql';
import { getSSEProcessor, isAsyncIterable, processRegularResult, type FetchAPI } from 'graphql-yoga';

export type Parts = ExecutionResult | AsyncIterable<ExecutionResult>;

const sse = getSSEProcessor();
/** yoga's serialiser, reached through its JSON processor: the body of the `Response` it makes. */
const SERIALISER = { Response: class { constructor(readonly body: string) {} } };

/** `result` as a Fetch `Response` in parts, as yoga's `text/event-stream` or `multipart/mixed` processor answers it. */
export function partsResponse(result: Parts, fetchAPI: FetchAPI, encoder: 'sse' | 'multipart'): Response {
  return encoder === 'sse' ? (sse(result as never, fetchAPI, 'text/event-stream') as Response) : multipart(result, fetchAPI);
}

function multipart(result: Parts, fetchAPI: FetchAPI): Response {
  const encoder = new fetchAPI.TextEncoder();
  const iterator = isAsyncIterable(result) ? result[Symbol.asyncIterator]() : once(result);
  const body = new fetchAPI.ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode('\r\n---'));
    },
    async pull(controller) {
      const { done, value } = await iterator.next();
      if (value != null) {
        const chunk = encoder.encode(serialised(value));
        controller.enqueue(encoder.encode(`\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${chunk.byteLength}\r\n\r\n`));
        controller.enqueue(chunk);
        controller.enqueue(encoder.encode('\r\n---'));
      }
      if (done) {
        controller.enqueue(encoder.encode('--\r\n'));
        controller.close();
      }
    },
    async cancel(reason) {
      await iterator.return?.(reason);
    },
  });
  const status = isAsyncIterable(result) ? 200 : statusOf(result);
  return new fetchAPI.Response(body, { status, headers: { connection: 'keep-alive', 'content-type': 'multipart/mixed; boundary="-"', 'transfer-encoding': 'chunked' } });
}

// Private: one result as an iterator of one.
function once(result: ExecutionResult): AsyncIterator<ExecutionResult> {
  let given = false;
  return {
    next: async () => (given ? { done: true, value: undefined } : ((given = true), { done: false, value: result })),
  };
}

function serialised(result: ExecutionResult): string {
  return (processRegularResult(result, SERIALISER as never, 'application/json') as unknown as { body: string }).body;
}

// Private: the status yoga's processors give a single result (its errors' HTTP status, else 200).
function statusOf(result: ExecutionResult): number {
  return (processRegularResult(result, { Response: class { constructor(_body: string, readonly init: { status: number }) {} } } as never, 'application/graphql-response+json') as unknown as { init: { status: number } }).init.status;
}
