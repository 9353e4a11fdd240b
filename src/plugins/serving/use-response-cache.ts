/**
 * The response cache on yoga's path, over its store (response-cache/store.ts): whole answers,
 * as the bytes sent, reused for identical operations.
 *
 * - Key: the operation that executes, as yoga parsed and graphql-js coerced it
 *   (response-cache/key.ts), never the request's own text. Ambiguous requests (a URL parameter
 *   given twice, a non-JSON body, a batch) are never looked up nor stored.
 * - A hit is answered when execution would start: after every guard has run (API keys, rate
 *   limit, CSRF prevention, the request parser's own checks, persisted operations, parsing,
 *   validation and the query limits), and before execution and serialisation. The bytes stored
 *   replace the result's serialisation.
 * - A miss offers its answer to the store, which asks the request object whether it may be
 *   stored and until when, with the result this plugin saw: nothing else has to have run.
 * - `ETag` on every stored answer; a GET whose `If-None-Match` matches it (RFC 9110's weak
 *   comparison, a list or `*`) gets 304. A hit is sent in the coding `Accept-Encoding` gets
 *   (edge/compression/answer.ts), with that form's ETag: a 304 per coding.
 * - What the HTTP caches downstream are told (`Cache-Control`, `Age`, `Vary`) is
 *   use-http-caching.ts's job; it learns when a served answer was stored from `storedAnswerServed`.
 *
 * Put it after the request scope (whose end must run on a hit too) and before the argument
 * checks and the upstream budget (a stored answer passed them when it was made).
 */
import type { Plugin } from 'graphql-yoga';
import { currentRequest } from '../../request/record.js';
import type { ResultErrors } from '../../request/request.js';
import { ambiguousRequest } from '../../response-cache/key.js';
import { etagMatches } from '../../response-cache/etag.js';
import { worthOffering } from '../../response-cache/unstorable.js';
import { answerToStore, storedAnswerServed, type ResponseCache, type StoredResponse } from '../../response-cache/store.js';
import { codingHeaders, type Compression } from '../../edge/compression/answer.js';
import { ROUTES } from '../../edge/routes.js';

const NO_BYTES = new Uint8Array(0);

export function useResponseCache(cache: ResponseCache, compression: Compression): Plugin<{ request?: Request }> {
  if (!cache.on) return {};
  const uncacheable = new WeakSet<Request>();
  // The result each missed request got, for the store to ask of its errors.
  const results = new WeakMap<Request, ResultErrors>();
  const graphqlEndpoint = ROUTES.graphql;
  return {
    onRequest({ request, url }) {
      if (url.pathname !== graphqlEndpoint || ambiguousRequest(request, url)) uncacheable.add(request);
    },
    onRequestParse({ request }) {
      return {
        onRequestParseDone({ requestParserResult }) {
          if (Array.isArray(requestParserResult)) uncacheable.add(request);
        },
      };
    },
    onExecute({ args, setResultAndStopExecution }) {
      const request = args.contextValue.request;
      if (request === undefined || uncacheable.has(request)) return;
      const key = cache.keyOf(args, request.headers.get('accept') ?? '');
      if (key === undefined) return;
      const gatewayRequest = currentRequest();
      const serve = (hit: StoredResponse | undefined) => {
        if (hit === undefined) {
          if (gatewayRequest !== undefined) cache.miss(request, key, args.document, gatewayRequest);
          return;
        }
        cache.serve(request, hit);
        // The result is never serialised: onResultProcess answers with the stored bytes.
        setResultAndStopExecution({});
      };
      const hit = cache.stored(key);
      const sharedHit = hit === undefined ? cache.sharedStored(args, key) : undefined;
      if (sharedHit === undefined) return serve(hit);
      return sharedHit.then(serve);
    },
    onResultProcess({ request, result, setResultProcessor }) {
      const hit = storedAnswerServed(request);
      if (hit === undefined) {
        if (!Array.isArray(result) && !(Symbol.asyncIterator in result)) results.set(request, result);
        return;
      }
      setResultProcessor((_result, fetchAPI) => {
        const sent = compression.answer(request.headers.get('accept-encoding'), hit.contentType, hit.body, hit);
        const etag = sent.etag ?? hit.etag;
        const headers = { 'content-type': hit.contentType, etag, 'x-cache': 'hit', ...codingHeaders(sent, undefined) };
        const notModified = request.method === 'GET' && etagMatches(request.headers.get('if-none-match'), etag);
        return new fetchAPI.Response(notModified ? null : (sent.body as Uint8Array<ArrayBuffer>), { status: notModified ? 304 : 200, headers });
      }, hit.contentType);
    },
    async onResponse({ request, response }) {
      const storeAnswer = answerToStore(request);
      if (storeAnswer === undefined) return;
      response.headers.set('x-cache', 'miss');
      // Only a whole answer is read back: reading an answer in parts would wait for its last part.
      const gatewayRequest = currentRequest();
      const result = results.get(request);
      if (gatewayRequest === undefined) return;
      // An answer with errors or stale data is never offered: it is this request's failure, not
      // its document's (response-cache/unstorable.ts). A whole one declined without reading it is
      // offered all the same: the document learns it.
      if (!worthOffering(gatewayRequest, response.status, result)) return;
      if (gatewayRequest.storable(result) === undefined) {
        return void storeAnswer(response.status, NO_BYTES, 'application/json', result);
      }
      const contentType = response.headers.get('content-type') ?? 'application/json';
      const etag = storeAnswer(response.status, await response.clone().arrayBuffer(), contentType, result);
      if (etag !== undefined) response.headers.set('etag', etag);
    },
  };
}
