/**
 * Every GraphQL request's log line and request metrics, on yoga's path (request/log.ts writes
 * them, `REQUEST_LOG_SAMPLE_PERCENT` of the successful ones; the request object, made by
 * plugins/serving/use-request.ts, holds what they report).
 *
 * - One info line per GraphQL request (`msg: 'graphql request'`) with the operation, HTTP status,
 *   outcome, duration, upstream calls made for it, cache hits/misses/stale serves and the error
 *   codes of the response; for an answer in parts (`@defer`, `@stream`), of all its parts, written
 *   once the last is sent (or the client left). Health checks, metrics scrapes and the GraphiQL page get no line.
 * - `gateway_graphql_requests_total` / `_duration_seconds` (whether the operation ran decides
 *   whether its name may get a label of its own), and `gateway_rejected_requests_total`.
 *
 * Nothing else depends on it: without it, answers are served and stored exactly as with it.
 */
import type { Plugin } from 'graphql-yoga';
import type { GatewayMetrics } from '../../observability/metrics.js';
import { currentRequest } from '../../request/record.js';
import type { EndRequest } from '../../request/log.js';
import type { GatewayRequest } from '../../request/request.js';

export function useRequestLog(metrics: GatewayMetrics, end: EndRequest): Plugin {
  /** Answers in parts still being sent, per request, and what to do when the last one ends. */
  const streams = new WeakMap<GatewayRequest, { open: number; ended: (() => void) | undefined }>();
  return {
    onExecute() {
      const request = currentRequest();
      return {
        onExecuteDone({ result }) {
          if (request === undefined || !(Symbol.asyncIterator in result)) return undefined;
          // An answer in parts (@defer, @stream): its line is written after the last part.
          const stream = streams.get(request) ?? { open: 0, ended: undefined };
          stream.open += 1;
          streams.set(request, stream);
          return {
            onEnd() {
              stream.open -= 1;
              if (stream.open === 0) stream.ended?.();
            },
          };
        },
      };
    },
    onResponse({ response }) {
      const request = currentRequest();
      if (request === undefined) return;
      if (request.rejectedAs !== undefined) metrics.rejectedRequest(request.rejectedAs);
      if (!request.graphql) return;
      const stream = streams.get(request);
      if (stream !== undefined && stream.open > 0) stream.ended = () => end(request, response.status);
      else end(request, response.status);
    },
  };
}
