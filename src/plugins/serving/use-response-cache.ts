/**
 * The response cache on yoga's path: whole answers, as the bytes sent, reused for identical
 * operations, keyed by the operation as coerced, never the request's text (ambiguous requests and
 * batches are neither looked up nor stored). A hit answers when execution would start, after
 * every guard, with the stored bytes, an `ETag` and 304 for a matching `If-None-Match`. A miss
 * offers its answer to the store, which asks the request object whether it may be kept.
 */
import type { Plugin } from 'graphql-yoga';
import { requestIn } from '../../request/request.js';
import { ambiguousRequest } from '../../response-cache/key.js';
import { etagMatches } from '../../response-cache/etag.js';
import { offeredUnread } from '../../response-cache/unstorable.js';
import type { ResponseCache, StoredResponse } from '../../response-cache/store.js';
import { codingHeaders, type Compression } from '../../encoding/compress.js';

export function useResponseCache(cache: ResponseCache, compression: Compression): Plugin<{ request?: Request }> {
  if (!cache.on) return {};
  return {
    onRequest({ request, url, serverContext }) {
      const gatewayRequest = requestIn(serverContext);
      if (gatewayRequest !== undefined && ambiguousRequest(request, url)) gatewayRequest.uncacheable = true;
    },
    onRequestParse({ serverContext }) {
      return {
        onRequestParseDone({ requestParserResult }) {
          const gatewayRequest = requestIn(serverContext);
          if (gatewayRequest !== undefined && Array.isArray(requestParserResult)) gatewayRequest.uncacheable = true;
        },
      };
    },
    onExecute({ args, setResultAndStopExecution }) {
      const { request } = args.contextValue;
      const gatewayRequest = requestIn(args.contextValue);
      if (request === undefined || gatewayRequest === undefined || gatewayRequest.uncacheable) return;
      const key = cache.keyOf(args, request.headers.get('accept') ?? '');
      if (key === undefined) return;
      const serve = (hit: StoredResponse | undefined) => {
        if (hit === undefined) return cache.miss(gatewayRequest, key, args.document);
        gatewayRequest.served = hit;
        // The result is never serialised: onResultProcess answers with the stored bytes.
        setResultAndStopExecution({});
      };
      const hit = cache.stored(key, gatewayRequest);
      const sharedHit = hit === undefined ? cache.sharedStored(args, key, gatewayRequest) : undefined;
      if (sharedHit === undefined) return serve(hit);
      return sharedHit.then(serve);
    },
    onResultProcess({ request, setResultProcessor, serverContext }) {
      const hit = requestIn(serverContext)?.served;
      if (hit === undefined) return;
      setResultProcessor((_result, fetchAPI) => {
        const sent = compression.answer(request.headers.get('accept-encoding'), hit.contentType, hit.body, hit);
        const etag = sent.etag ?? hit.etag;
        const headers = { 'content-type': hit.contentType, etag, 'x-cache': 'hit', ...codingHeaders(sent, undefined) };
        const notModified = request.method === 'GET' && etagMatches(request.headers.get('if-none-match'), etag);
        return new fetchAPI.Response(notModified ? null : (sent.body as Uint8Array<ArrayBuffer>), { status: notModified ? 304 : 200, headers });
      }, hit.contentType);
    },
    async onResponse({ response, serverContext }) {
      const gatewayRequest = requestIn(serverContext);
      const storeAnswer = gatewayRequest?.toStore;
      if (gatewayRequest === undefined || storeAnswer === undefined) return;
      response.headers.set('x-cache', 'miss');
      // Only an answer that can be kept is read back: reading an answer in parts would wait for its last part.
      if (offeredUnread(gatewayRequest, response.status, storeAnswer)) return;
      const contentType = response.headers.get('content-type') ?? 'application/json';
      const etag = storeAnswer(response.status, await response.clone().arrayBuffer(), contentType, gatewayRequest.result);
      if (etag !== undefined) response.headers.set('etag', etag);
    },
  };
}
