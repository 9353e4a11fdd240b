/**
 * The response cache for an operation run through yoga's execute (an answer in parts, or one part
 * to a client of parts only): looked up when execution would start, after every guard, keyed by
 * the operation as coerced. A hit stops execution and is noted on the request object, whose door
 * sends the stored bytes; a miss is noted there too, for the door to offer its answer.
 */
import type { Plugin } from 'graphql-yoga';
import { requestIn } from '../../request/request.js';
import type { ResponseCache, StoredResponse } from '../../response-cache/store.js';

export function useResponseCache(cache: ResponseCache): Plugin<{ request?: Request }> {
  if (!cache.on) return {};
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const { request } = args.contextValue;
      const gatewayRequest = requestIn(args.contextValue);
      if (request === undefined || gatewayRequest === undefined || gatewayRequest.uncacheable) return;
      const key = cache.keyOf(args, request.headers.get('accept') ?? '');
      if (key === undefined) return;
      const serve = (hit: StoredResponse | undefined) => {
        if (hit === undefined) return cache.miss(gatewayRequest, key, args.document);
        gatewayRequest.served = hit;
        // The result is never serialised: the door answers with the stored bytes.
        setResultAndStopExecution({});
      };
      const hit = cache.stored(key, gatewayRequest);
      const sharedHit = hit === undefined ? cache.sharedStored(args, key, gatewayRequest) : undefined;
      if (sharedHit === undefined) return serve(hit);
      return sharedHit.then(serve);
    },
  };
}
