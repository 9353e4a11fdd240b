/**
 * A request's log line and request metrics, whichever door it came through: yoga's path
 * (plugins/operations/use-request-log.ts), the lean path (edge/lean/lean-path.ts) and the
 * WebSocket door (edge/ws/operations.ts) write the same fields from the same request object.
 */
import { systemClock } from '../base/clock.js';
import type { GatewayRequest } from './request.js';

/** What the log counts requests in: observability/metrics.ts's `graphqlRequest` (declared here, below it). */
export interface RequestMetrics {
  graphqlRequest(labels: { operation: string; ran: boolean }, outcome: 'ok' | 'error', durationMs: number): void;
}

/** The request's log line and its request metrics. */
export function logAndCount(request: GatewayRequest, status: number, metrics: RequestMetrics): void {
  const durationMs = systemClock.monotonic() - request.startedAt;
  const operation = operationOf(request);
  const outcome = status < 400 && request.errorCodes.size === 0 ? 'ok' : 'error';
  metrics.graphqlRequest({ operation, ran: request.operations.length > 0 }, outcome, durationMs);
  request.logLine({ operation, status, outcome, durationMs: Math.round(durationMs * 10) / 10, ...recordCounts(request) }, 'graphql request');
}

/** What every request's log line reports of what happened, whatever carried it (HTTP, WebSocket). */
export function recordCounts(request: GatewayRequest): Record<string, unknown> {
  return {
    upstreamCalls: request.upstreamCalls,
    cacheHits: request.cacheHits,
    cacheMisses: request.cacheMisses,
    cacheStale: request.cacheStale,
    ...(request.responseCache === undefined ? {} : { responseCache: request.responseCache }),
    errorCodes: [...request.errorCodes],
    ...(request.client === undefined ? {} : { client: request.client }),
  };
}

// Private: the executed operation's name (names joined for a batch); the name the client sent
// when nothing was executed (a parse or validation error); `unknown` when there is neither.
function operationOf(request: GatewayRequest): string {
  if (request.operations.length > 0) return [...new Set(request.operations)].join(',');
  return request.requestedOperation ?? 'unknown';
}
