/** The request's span, opened by its door and kept on its request object: what every answer writes on it. */
import { SpanStatusCode, context, trace, type Span } from '@opentelemetry/api';
import type { GatewayRequest } from '../request/request.js';

/** The answer's status and the request's counts on its span, if one records. */
export function describeAnswer(record: GatewayRequest, status: number): void {
  const span = record.span;
  if (span === undefined || !span.isRecording()) return;
  span.setAttribute('http.response.status_code', status);
  if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR, message: `HTTP ${status}` });
  span.setAttributes({
    'gateway.request_id': record.id,
    'gateway.upstream_calls': record.upstreamCalls,
    'gateway.cache_hits': record.cacheHits,
    'gateway.cache_misses': record.cacheMisses,
    'gateway.cache_stale': record.cacheStale,
    ...(record.responseCache === undefined ? {} : { 'gateway.response_cache': record.responseCache }),
  });
}

/** Runs `run` with `span` active (none: as it is), so that what it logs carries the span's ids. */
export function withSpan<T>(span: Span | undefined, run: () => T): T {
  return span === undefined ? run() : context.with(trace.setSpan(context.active(), span), run);
}
