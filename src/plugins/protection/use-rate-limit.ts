/**
 * The rate limit (admission/rate-limit.ts) on yoga's HTTP path: every request counts one on
 * arrival, after the API key, unless the lean path counted it; a batch counts its other operations
 * once parsed and is refused whole when they do not fit.
 */
import type { IncomingMessage } from 'node:http';
import type { Plugin } from 'graphql-yoga';
import type { RateLimit } from '../../admission/rate-limit.js';
import { UNLIMITED_PATHS } from '../../admission/routes.js';
import { refusalError, type Refusal } from '../../admission/refusal.js';
import { currentRequest } from '../../request/current.js';
import { refusalResponse } from '../../admission/refusal-writer.js';

export function useRateLimit(rate: RateLimit): Plugin {
  if (!rate.on) return {};
  return {
    onRequest({ url, serverContext, endResponse, fetchAPI }) {
      if (UNLIMITED_PATHS.has(url.pathname)) return;
      const refuse = (refused: Refusal | undefined) => {
        if (refused === undefined) return;
        markRejected();
        endResponse(refusalResponse(fetchAPI, refused));
      };
      const verdict = rate.arrive(currentRequest()?.client, requestOf(serverContext));
      return verdict instanceof Promise ? verdict.then((taken) => refuse(rate.refusal(taken))) : refuse(rate.refusal(verdict));
    },
    onRequestParse({ serverContext }) {
      return {
        onRequestParseDone({ requestParserResult }) {
          if (!Array.isArray(requestParserResult)) return;
          // A refusal after parsing, when `endResponse` is no longer offered: yoga answers a thrown
          // error with its status and headers, in the same `{ errors: [...] }` shape.
          const refuse = (refused: Refusal | undefined) => {
            if (refused === undefined) return;
            markRejected();
            throw refusalError(refused);
          };
          const verdict = rate.batch(currentRequest()?.client, requestOf(serverContext), requestParserResult.length);
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

function markRejected(): void {
  const record = currentRequest();
  if (record === undefined) return;
  record.rejectedAs = 'rate_limited';
  record.errorCodes.add('RATE_LIMITED');
}
