/**
 * The GraphQL road's answers: a stored answer, or the query's result written by yoga's own result
 * processor, stored when the response cache asked, in the client's coding, with its request id,
 * `no-store` and the CORS headers; then its log line and metrics.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ExecutionArgs, ExecutionResult, GraphQLError } from 'graphql';
import { isAsyncIterable, type FetchAPI } from 'graphql-yoga';
import { sendNodeResponse } from '@whatwg-node/server';
import { partsResponse, wholeAnswer, type Parts } from '../../encoding/results.js';
import type { RunQuery } from '../../graph/execution/run.js';
import { maskError } from '../../graph/mask-error.js';
import type { EndRequest } from '../../request/log.js';
import { REQUEST_ID_HEADER } from '../../request/current.js';
import type { GatewayRequest } from '../../request/request.js';
import { storedAnswerOf, type StoredResponse } from '../../response-cache/store.js';
import { offeredUnread, worthOffering } from '../../response-cache/unstorable.js';
import { codingHeaders, type Compression } from '../../encoding/compress.js';
import type { Cors } from '../../encoding/cors.js';
import { nodeHeaders } from '../../admission/api-key.js';
import { createWriteBatch } from './writes.js';
import type { Refusal } from '../../admission/refusal.js';
import { refusalBody } from '../../admission/refusal-writer.js';
import type { CachingHeaders } from '../../encoding/http-caching.js';
import { etagMatches } from '../../response-cache/etag.js';
import { describeAnswer, withSpan } from '../../observability/request-span.js';
import { encodingFor, type HookRequest } from './request.js';
import type { GatewayContext } from '../../graph/context.js';

export interface Answers {
  answerStored(record: GatewayRequest, client: string | undefined, operation: string, res: ServerResponse, hit: StoredResponse): void;
  /** A refusal before the request's parameters are read (its API key, its rate limit, its method, its body, its `Accept`), in the refusal writer's JSON. */
  refuse(record: GatewayRequest, res: ServerResponse, refused: Refusal): void;
  /** A result (or a batch's results), in parts or whole, encoded as `Accept` asks (an encoder it accepts is known to exist). */
  answerAs(record: GatewayRequest, res: ServerResponse, result: Parts | ExecutionResult[], accept: string, subscription: boolean): void;
  /** Makes the query's context from `initial` (yoga's initial context, with its request object) and runs it: its result, errors masked. */
  resultOf(args: ExecutionArgs, initial: Initial): Promise<ExecutionResult>;
  /** Answers with the query's result (resultOf's). */
  answer(args: ExecutionArgs, initial: Initial, res: ServerResponse, mediaType: string): Promise<void>;
}

/** yoga's initial context of one operation, with its request object. */
export type Initial = { request: HookRequest; gatewayRequest: GatewayRequest; [name: string]: unknown };

/** The media type of a refusal written before the parameters are read, as the Fetch API's JSON response gives it. */
const JSON_TYPE = 'application/json; charset=utf-8';

export interface AnswerOptions {
  end: EndRequest;
  compression: Compression;
  cors: Cors;
  /** The HTTP caching headers every GraphQL answer gets (encoding/http-caching.ts). */
  caching: CachingHeaders;
  run: RunQuery;
  /** yoga's Fetch API, which answers in parts are made with. */
  fetchAPI: FetchAPI;
  /** yoga's context factory. */
  context: (initial: { request: HookRequest; gatewayRequest: GatewayRequest }) => GatewayContext;
}

export function createAnswers({ end, compression, cors, caching, run, context, fetchAPI }: AnswerOptions): Answers {
  const write = createWriteBatch();

  return {
    answerStored(record, client, operation, res, hit) {
      record.graphql = true;
      record.client = client;
      record.operations.push(operation);
      record.served = hit;
      sendStored(res, record, hit);
    },
    refuse(record, res, refused) {
      record.graphql = true;
      record.errorCodes.add(refused.code);
      send(res, record, refused.status, Buffer.from(refusalBody(refused)), { 'content-type': JSON_TYPE, ...refused.headers });
    },
    resultOf,
    answerAs(record, res, result, accept, subscription) {
      record.graphql = true;
      // Served stored by the response cache's execution hook: its bytes, not the empty result.
      if (record.served !== undefined) return sendStored(res, record, record.served);
      const encoding = encodingFor(accept, isAsyncIterable(result), subscription)!;
      if (encoding.encoder === 'regular') return respond(record, res, result as ExecutionResult | ExecutionResult[], encoding.mediaType);
      if (Array.isArray(result)) result.forEach((one) => record.note(one));
      else if (!isAsyncIterable(result)) {
        record.result = result;
        record.note(result);
      }
      const response = partsResponse(result as Parts, fetchAPI, encoding.encoder);
      // One part the response cache asked for: read whole and offered with its bytes, as an answer in JSON is.
      if (record.toStore === undefined || isAsyncIterable(result) || Array.isArray(result)) return sendParts(record, res, response);
      void response.arrayBuffer().then((body) => {
        const headers = headersOf(response);
        delete headers['transfer-encoding'];
        delete headers.connection;
        sendMade(record, res, result, response.status, Buffer.from(body), headers);
      });
    },
    async answer(args, initial, res, mediaType) {
      respond(initial.gatewayRequest, res, await resultOf(args, initial), mediaType);
    },
  };

  async function resultOf(args: ExecutionArgs, initial: Initial): Promise<ExecutionResult> {
    try {
      args.contextValue = Object.assign(initial, context(initial));
      return await run(args as Parameters<RunQuery>[0]);
    } catch (error) {
      // As yoga does with an error thrown making the context or executing: masked, in `errors`.
      return { errors: [maskError(error) as GraphQLError] };
    }
  }

  // Private: `result` written by yoga's result processor, offered to the response cache when it asked.
  function respond(record: GatewayRequest, res: ServerResponse, result: ExecutionResult | ExecutionResult[], mediaType: string): void {
    for (const one of Array.isArray(result) ? result : [result]) record.note(one);
    const whole = wholeAnswer(result, mediaType);
    sendMade(record, res, result, whole.status, Buffer.from(whole.body), lowerCased(whole.headers));
  }

  // Private: an answer made whole, offered to the response cache when it asked (only when whole: a failed answer teaches its document nothing).
  function sendMade(record: GatewayRequest, res: ServerResponse, result: ExecutionResult | ExecutionResult[], status: number, bytes: Buffer, headers: Record<string, string>): void {
    const store = record.toStore;
    if (store !== undefined) {
      headers['x-cache'] = 'miss';
      const etag = !Array.isArray(result) && worthOffering(record, status, result) ? store(status, bytes, headers['content-type']!) : undefined;
      if (etag !== undefined) headers.etag = etag;
    }
    send(res, record, status, bytes, headers, storedAnswerOf(record));
  }

  function sendStored(res: ServerResponse, record: GatewayRequest, hit: StoredResponse): void {
    send(res, record, 200, hit.body, { 'content-type': hit.contentType, etag: hit.etag, 'x-cache': 'hit' }, hit);
  }

  // Private: an answer in parts, with what every answer carries; its log line once its last part is sent.
  function sendParts(record: GatewayRequest, res: ServerResponse, response: Response): void {
    const req = res.req;
    const { status } = response;
    const headers = headersOf(response);
    withCaching(record, req, status, headers);
    withIdAndCors(record, req, headers);
    const store = record.toStore;
    if (store !== undefined) {
      headers['x-cache'] = 'miss';
      // Never its bytes: an answer in many parts is not kept.
      offeredUnread(record, status, store);
    }
    describeAnswer(record, status);
    const stream = record.streams;
    if (stream !== undefined && stream.open > 0) stream.ended = () => withSpan(record.span, () => end(record, status));
    else end(record, status);
    res.once('close', () => record.release());
    void sendNodeResponse(new fetchAPI.Response(response.body, { status, headers }), res, req, false);
  }

  function send(res: ServerResponse, record: GatewayRequest, status: number, plain: Uint8Array, headers: Record<string, string>, stored?: StoredResponse): void {
    if (res.destroyed) {
      withSpan(record.span, () => end(record, status));
      return record.release();
    }
    const req = res.req;
    withCaching(record, req, status, headers);
    const sent = compression.answer(req.headers['accept-encoding'], headers['content-type'], plain, stored);
    Object.assign(headers, codingHeaders(sent, headers.vary));
    // A GET of a stored answer the client holds: 304.
    const notModified = req.method === 'GET' && record.served !== undefined && etagMatches(req.headers['if-none-match'] ?? null, headers.etag!);
    const body = notModified ? undefined : sent.body;
    if (body !== undefined) headers['content-length'] = String(body.byteLength);
    withIdAndCors(record, req, headers);
    if (notModified) status = 304;
    write(() => {
      if (!res.destroyed) res.writeHead(status, headers).end(body);
      describeAnswer(record, status);
      // Written for many requests at once: each line in its own request's span.
      withSpan(record.span, () => end(record, status));
      record.release();
    });
  }

  // Private: the caching rule's headers (encoding/http-caching.ts), first: coding and CORS extend its `Vary`.
  function withCaching(record: GatewayRequest, req: IncomingMessage, status: number, headers: Record<string, string>): void {
    Object.assign(headers, caching(record, { method: req.method ?? 'POST', status, contentType: headers['content-type'], vary: headers.vary }));
  }

  // Private: last, the request id and the CORS headers (`Origin` added to the `Vary` so far).
  function withIdAndCors(record: GatewayRequest, req: IncomingMessage, headers: Record<string, string>): void {
    headers[REQUEST_ID_HEADER] = record.id;
    if (cors.on) Object.assign(headers, cors.headersFor(nodeHeaders(req), { vary: headers.vary ?? null, cacheControl: headers['cache-control']! }));
  }
}

// Private: a Fetch response's headers, in lower case: @whatwg-node's Headers keeps the case a processor wrote.
function headersOf(response: Response): Record<string, string> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name.toLowerCase()] = value));
  return headers;
}

// Private: header names as Node writes them, so that a name set twice is set once.
function lowerCased(headers: Record<string, string>): Record<string, string> {
  const lower: Record<string, string> = {};
  for (const name in headers) lower[name.toLowerCase()] = headers[name]!;
  return lower;
}
