/**
 * Every request's id, log line and request metrics.
 *
 * - Request id: the client's `x-request-id` when it is short and safe (1–64 of `A–Z a–z 0–9 . _ : -`),
 *   else a fresh UUID; sent back in `x-request-id` on every response, and carried by every log
 *   line written on the request's behalf (its own child logger, and the shared components'
 *   lines through `withRequestIds`).
 * - One info line per GraphQL request (`msg: 'graphql request'`) with the operation, HTTP status,
 *   outcome, duration, upstream calls made for it, cache hits/misses/stale serves and the error
 *   codes of the response; for an answer in parts (`@defer`, `@stream`), of all its parts, written
 *   once the last is sent (or the client left). Health checks, metrics scrapes and the GraphiQL page get no line.
 * - `gateway_graphql_requests_total` / `_duration_seconds` (whether the operation ran decides
 *   whether its name may get a label of its own), and `gateway_rejected_requests_total`.
 *
 * It opens the request's record (request/record.ts) around the whole request, so
 * put it first among the plugins.
 */
import { getOperationAST, type GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Logger } from '../../base/logger.js';
import type { GatewayMetrics } from '../../observability/metrics.js';
import { maskError } from '../../graph/mask-error.js';
import {
  REQUEST_ID_HEADER,
  createRequestRecord,
  currentRequest,
  requestIdFrom,
  runInRequest,
  type RequestRecord,
} from '../../request/record.js';

const GRAPHQL_NAME = /^[_A-Za-z][_0-9A-Za-z]{0,99}$/;

export function useRequestLog(logger: Logger, metrics: GatewayMetrics): Plugin {
  let graphqlEndpoint = '/graphql';
  /** Answers in parts still being sent, per request, and what to do when the last one ends. */
  const streams = new WeakMap<RequestRecord, { open: number; ended: (() => void) | undefined }>();
  return {
    onYogaInit({ yoga }) {
      graphqlEndpoint = yoga.graphqlEndpoint;
    },
    instrumentation: {
      request({ request }, serve) {
        const record = createRequestRecord(requestIdFrom(request.headers.get(REQUEST_ID_HEADER)), logger);
        return runInRequest(record, serve);
      },
    },
    onRequest({ url }) {
      const record = currentRequest();
      if (record !== undefined) record.graphql = url.pathname === graphqlEndpoint;
    },
    onParams({ params }) {
      const record = currentRequest();
      const name = params.operationName;
      if (record !== undefined && typeof name === 'string' && GRAPHQL_NAME.test(name)) record.requestedOperation = name;
    },
    onExecute({ args }) {
      const operation = getOperationAST(args.document, args.operationName);
      const record = currentRequest();
      record?.operations.push(operation?.name?.value ?? 'anonymous');
      return {
        onExecuteDone({ result }) {
          if (record === undefined || !(Symbol.asyncIterator in result)) return undefined;
          // An answer in parts (@defer, @stream): its line is written after the last part.
          const stream = streams.get(record) ?? { open: 0, ended: undefined };
          stream.open += 1;
          streams.set(record, stream);
          return {
            // Parts reach this hook before they are masked: the code logged is the one the client gets.
            onNext({ result: part }) {
              for (const error of part.errors ?? []) record.errorCodes.add(codeOf(maskError(error, '')));
              for (const increment of 'incremental' in part ? part.incremental ?? [] : []) {
                for (const error of increment.errors ?? []) record.errorCodes.add(codeOf(maskError(error, '')));
              }
            },
            onEnd() {
              stream.open -= 1;
              if (stream.open === 0) stream.ended?.();
            },
          };
        },
      };
    },
    onResultProcess({ result }) {
      const record = currentRequest();
      if (record === undefined || Symbol.asyncIterator in result) return;
      for (const one of Array.isArray(result) ? result : [result]) noteErrorCodes(record, one);
    },
    onResponse({ response }) {
      const record = currentRequest();
      if (record === undefined) return;
      response.headers.set(REQUEST_ID_HEADER, record.id);
      if (record.rejectedAs !== undefined) metrics.rejectedRequest(record.rejectedAs);
      if (!record.graphql) return;
      const stream = streams.get(record);
      if (stream !== undefined && stream.open > 0) stream.ended = () => logAndCount(record, response.status, metrics);
      else logAndCount(record, response.status, metrics);
    },
  };
}

/** Adds the codes of a (masked) result's errors to the request's record. */
export function noteErrorCodes(record: RequestRecord, result: { errors?: readonly (GraphQLError | Error)[] }): void {
  for (const error of result.errors ?? []) record.errorCodes.add(codeOf(error));
}

/** The request's log line and its request metrics (the lean path writes its own with this too). */
export function logAndCount(record: RequestRecord, status: number, metrics: GatewayMetrics): void {
  const durationMs = performance.now() - record.startedAt;
  const operation = operationOf(record);
  const outcome = status < 400 && record.errorCodes.size === 0 ? 'ok' : 'error';
  metrics.graphqlRequest({ operation, ran: record.operations.length > 0 }, outcome, durationMs);
  record.logLine({ operation, status, outcome, durationMs: Math.round(durationMs * 10) / 10, ...recordCounts(record) }, 'graphql request');
}

/** What every request's log line reports of its record, whatever carried it (HTTP, WebSocket). */
export function recordCounts(record: RequestRecord): Record<string, unknown> {
  return {
    upstreamCalls: record.upstreamCalls,
    cacheHits: record.cacheHits,
    cacheMisses: record.cacheMisses,
    cacheStale: record.cacheStale,
    ...(record.responseCache === undefined ? {} : { responseCache: record.responseCache }),
    errorCodes: [...record.errorCodes],
    ...(record.client === undefined ? {} : { client: record.client }),
  };
}

// Private: the executed operation's name (names joined for a batch); the name the client sent
// when nothing was executed (a parse or validation error); `unknown` when there is neither.
function operationOf(record: RequestRecord): string {
  if (record.operations.length > 0) return [...new Set(record.operations)].join(',');
  return record.requestedOperation ?? 'unknown';
}

function codeOf(error: GraphQLError | Error): string {
  const code = (error as GraphQLError).extensions?.code;
  return typeof code === 'string' ? code : 'UNKNOWN';
}
