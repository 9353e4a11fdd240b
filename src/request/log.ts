/** A request's log line and request metrics, the same fields from the same request object at every door. */
import type { Clock } from '../base/clock.js';
import type { GatewayRequest } from './request.js';

/** What the log counts requests in (the metrics' `graphqlRequest`). */
export interface RequestMetrics {
  graphqlRequest(labels: { operation: string; ran: boolean }, outcome: 'ok' | 'error', durationMs: number): void;
  /** A request refused by the admission (`rejectedAs`). */
  rejectedRequest(reason: string): void;
}

/** Which requests get a log line. */
export interface LogSampling {
  /** The share of successful requests faster than `slowMs` that get one, in per cent (exact, not random). */
  samplePercent: number;
  slowMs: number;
}

/** Ends a request: its request metrics, always, and its log line. */
export type EndRequest = (request: GatewayRequest, status: number) => void;

/**
 * The request log of every HTTP door. A line costs enough that an operator may keep only a share
 * of the successful, fast ones; a failed or slow request is always written. Durations are read on
 * `clock`, the one the door read the start on.
 */
export function createRequestLog(metrics: RequestMetrics, sampling: LogSampling, clock: Clock): EndRequest {
  let credit = 0;
  return (request, status) => {
    if (request.rejectedAs !== undefined) metrics.rejectedRequest(request.rejectedAs);
    const durationMs = clock.monotonic() - request.startedAt;
    const operation = operationOf(request);
    const outcome = status < 400 && request.errorCodes.size === 0 ? 'ok' : 'error';
    metrics.graphqlRequest({ operation, ran: request.operations.length > 0 }, outcome, durationMs);
    if (sampling.samplePercent < 100 && outcome === 'ok' && durationMs < sampling.slowMs) {
      credit += sampling.samplePercent;
      if (credit < 100) return;
      credit -= 100;
    }
    request.logLine(withCounts(request, { operation, status, outcome, durationMs: Math.round(durationMs * 10) / 10 }), 'graphql request');
  };
}

/** `fields` plus what every request's log line reports, added in place; undefined fields are not written. */
export function withCounts(request: GatewayRequest, fields: Record<string, unknown>): Record<string, unknown> {
  fields.upstreamCalls = request.upstreamCalls;
  fields.cacheHits = request.cacheHits;
  fields.cacheMisses = request.cacheMisses;
  fields.cacheStale = request.cacheStale;
  fields.responseCache = request.responseCache;
  fields.errorCodes = [...request.errorCodes];
  fields.client = request.client;
  return fields;
}

// Private: the executed operation's name (joined for a batch), else the name the client sent, else `unknown`.
function operationOf(request: GatewayRequest): string {
  const { operations } = request;
  if (operations.length === 1) return operations[0]!;
  if (operations.length > 1) return [...new Set(operations)].join(',');
  return request.requestedOperation ?? 'unknown';
}
