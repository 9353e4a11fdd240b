/**
 * A result as yoga's processors write it: whole, by its JSON processor; or in parts, as server-sent
 * events by its own processor, or as `multipart/mixed` parts framed as yoga frames them (its
 * multipart processor is not exported), each part's JSON made by its serialiser. A single result
 * in parts is one part.
 */
import type { ExecutionResult } from 'graphql';
import { getSSEProcessor, isAsyncIterable, processRegularResult, type FetchAPI } from 'graphql-yoga';

export type Parts = ExecutionResult | AsyncIterable<ExecutionResult>;

/** A whole answer: what yoga's JSON processor hands its `Response`. */
export interface Whole {
  body: string;
  status: number;
  headers: Record<string, string>;
}

const sse = getSSEProcessor();
/** A stand-in for the Fetch API, whose `Response` keeps what yoga's JSON processor made. */
const KEEP = { Response: class { constructor(readonly body: string, readonly init: { status: number; headers: Record<string, string> }) {} } };

/** `result` (a batch's results too) as yoga's JSON processor answers it for `mediaType`. */
export function wholeAnswer(result: ExecutionResult | ExecutionResult[], mediaType: string): Whole {
  const made = processRegularResult(result as ExecutionResult, KEEP as never, mediaType) as unknown as InstanceType<typeof KEEP.Response>;
  return { body: made.body, status: made.init.status, headers: made.init.headers };
}

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
        const chunk = encoder.encode(wholeAnswer(value, 'application/json').body);
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
  // The status yoga's processors give a single result: its errors' HTTP status, else 200.
  const status = isAsyncIterable(result) ? 200 : wholeAnswer(result, 'application/graphql-response+json').status;
  return new fetchAPI.Response(body, { status, headers: { connection: 'keep-alive', 'content-type': 'multipart/mixed; boundary="-"', 'transfer-encoding': 'chunked' } });
}

// Private: one result as an iterator of one.
function once(result: ExecutionResult): AsyncIterator<ExecutionResult> {
  let given = false;
  return {
    next: async () => (given ? { done: true, value: undefined } : ((given = true), { done: false, value: result })),
  };
}
