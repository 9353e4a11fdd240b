/**
 * The rate limit (admission/rate-limit.ts) on yoga's HTTP path: every request counts one on
 * arrival, after the API key, unless the lean path counted it; a batch counts its other operations
 * once parsed and is refused whole when they do not fit.
 */
import type { IncomingMessage } from 'node:http';
import type { Plugin } from 'graphql-yoga';
import type { RateLimit } from '../../admission/rate-limit.js';
import { refusalError, type Refusal } from '../../admission/refusal.js';
import { requestIn, type GatewayRequest } from '../../request/request.js';
import { refusalResponse } from '../../admission/refusal-writer.js';

export function useRateLimit(rate: RateLimit): Plugin {
  if (!rate.on) return {};
  return {
    onRequest({ serverContext, endResponse, fetchAPI }) {
      // Every request has one by now: its door's, or use-request.ts's.
      const request = requestIn(serverContext)!;
      const refuse = (refused: Refusal | undefined) => {
        if (refused === undefined) return;
        markRejected(request);
        endResponse(refusalResponse(fetchAPI, refused));
      };
      const verdict = rate.arrive(request, requestOf(serverContext));
      return verdict instanceof Promise ? verdict.then((taken) => refuse(rate.refusal(taken))) : refuse(rate.refusal(verdict));
    },
    onRequestParse({ serverContext }) {
      return {
        onRequestParseDone({ requestParserResult }) {
          if (!Array.isArray(requestParserResult)) return;
          // A refusal after parsing, when `endResponse` is no longer offered: yoga answers a thrown
          // error with its status and headers, in the same `{ errors: [...] }` shape.
          const request = requestIn(serverContext);
          const refuse = (refused: Refusal | undefined) => {
            if (refused === undefined) return;
            if (request !== undefined) markRejected(request);
            throw refusalError(refused);
          };
          const verdict = rate.batch(request?.client, requestOf(serverContext), requestParserResult.length);
          return verdict instanceof Promise ? verdict.then(refuse) : refuse(verdict);
        },
      };
    },
  };
}

// Private: the request (yoga's node adapter puts the IncomingMessage in `req`).
function requestOf(serverContext: unknown): IncomingMessage | undefined {
  return (serverContext as { req?: IncomingMessage }).req;
}

function markRejected(request: GatewayRequest): void {
  request.rejectedAs = 'rate_limited';
  request.errorCodes.add('RATE_LIMITED');
}
