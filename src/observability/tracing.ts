/**
 * OpenTelemetry traces: one tracer provider per gateway, exporting OTLP/HTTP (JSON) in batches
 * to the configured endpoint, sampled as `OTEL_TRACES_SAMPLER` says.
 *
 * The span tree of one request (see plugins/operations/use-tracing.ts for the first two):
 *
 *   POST /graphql                 server span; a new trace linked to the client's `traceparent`
 *                                 (its child with OTEL_TRUST_CLIENT_TRACE)
 *   └─ query SiteLanes            the GraphQL operation (name, type, document hash)
 *      ├─ GET /api/site/detail    a client span per upstream call (all its attempts)
 *      ├─ POST token              a client span per token request
 *      └─ catalog.walk sites      a walk of the catalog index (its upstream calls within)
 *
 * Spans nest through the active context, which an `AsyncLocalStorage` carries across awaits and
 * into DataLoader batches (they run in the context of the load that scheduled them). Tracing off
 * (no endpoint) means no provider, no context manager, no hooks: the gateway passes `undefined`
 * and every caller skips its tracing work on that one check.
 *
 * A client's trace context is not trusted by default: an edge that let any caller's `-01` flag
 * decide sampling would export every request of whoever sends one, whatever the sampler, and
 * would copy the caller's `tracestate` onto its spans and on to the upstream. So the request
 * starts a trace of its own, which the gateway's sampler decides, and links the client's span.
 * Behind your own frontends, whose trace the gateway's should join, set OTEL_TRUST_CLIENT_TRACE.
 */
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  context,
  defaultTextMapSetter,
  isSpanContextValid,
  trace,
  type Attributes,
  type Context,
  type Link,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BasicTracerProvider,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  type Sampler,
} from '@opentelemetry/sdk-trace-base';
import type { UpstreamSpan, UpstreamTracer } from '../upstream/http/tracer.js';
import type { TracingConfig } from '../base/config/tracing.js';
import { codeOf } from '../base/errors.js';

export interface Tracing {
  readonly tracer: Tracer;
  /** The hook of the upstream client and the token manager: client spans and `traceparent`. */
  readonly upstream: UpstreamTracer;
  /**
   * Starts the server span of a request. Its W3C `traceparent` is the parent with
   * `trustClientTrace` (a parent-based sampler keeps the client's decision, its `tracestate`
   * goes on); else a link, and the span roots a trace of the gateway's own. Not made active.
   */
  requestSpan(name: string, attributes: Attributes, headers: Headers): Span;
  /** Runs `run` in an internal span, a child of the active one; ends it when `run` settles. */
  inSpan<T>(name: string, attributes: Attributes, run: () => Promise<T>): Promise<T>;
  /** Exports every span ended so far (tests, shutdown). */
  flush(): Promise<void>;
  /** Exports what is left and stops the exporter. */
  shutdown(): Promise<void>;
}

/** Longest error message recorded on a span, in characters. */
const MAX_MESSAGE_LENGTH = 200;

const propagator = new W3CTraceContextPropagator();
let contextManagerSet = false;

/**
 * The gateway's tracing for `config`. Registers an `AsyncLocalStorage` context manager with the
 * OpenTelemetry API once per process (the first one wins); the tracer provider stays private to
 * the gateway (no global provider), so two gateways in one process trace apart.
 */
export function createTracing(config: TracingConfig): Tracing {
  if (!contextManagerSet) {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    contextManagerSet = true;
  }
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': config.serviceName }),
    sampler: samplerFor(config),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: config.endpoint }))],
  });
  const tracer = provider.getTracer('vending-graph');

  return {
    tracer,
    upstream: {
      clientSpan(name, attributes, run) {
        const span = tracer.startSpan(name, { kind: SpanKind.CLIENT, attributes });
        return context.with(trace.setSpan(context.active(), span), () => endWhenSettled(span, run(upstreamSpan(span))));
      },
    },
    requestSpan(name, attributes, headers) {
      const client = propagator.extract(ROOT_CONTEXT, headers, headersGetter);
      if (config.trustClientTrace) return tracer.startSpan(name, { kind: SpanKind.SERVER, attributes }, client);
      return tracer.startSpan(name, { kind: SpanKind.SERVER, attributes, root: true, links: linkTo(client) }, ROOT_CONTEXT);
    },
    inSpan(name, attributes, run) {
      const span = tracer.startSpan(name, { kind: SpanKind.INTERNAL, attributes });
      return context.with(trace.setSpan(context.active(), span), () => endWhenSettled(span, run()));
    },
    flush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}

/**
 * Marks `span` failed by `error`: status ERROR, `error.type` its code (`extensions.code` or an
 * upstream error's `code`), and an exception event with a short message (upstream and gateway
 * messages carry no token or secret; a client's values appear in them only as short prefixes).
 */
export function recordError(span: Span, error: unknown): void {
  const code = codeOf(error);
  const message = error instanceof Error ? error.message.slice(0, MAX_MESSAGE_LENGTH) : code;
  span.setAttribute('error.type', code);
  span.addEvent('exception', { 'exception.type': code, 'exception.message': message });
  span.setStatus({ code: SpanStatusCode.ERROR, message: code });
}

/** Ends `span` once `result` settles (recording a rejection on it), and settles as it did. */
export function endWhenSettled<T>(span: Span, result: Promise<T>): Promise<T> {
  return result.then((value) => {
    span.end();
    return value;
  }, (error: unknown) => {
    recordError(span, error);
    span.end();
    throw error;
  });
}

// Private: the span handed to the upstream layer, which knows nothing of OpenTelemetry.
function upstreamSpan(span: Span): UpstreamSpan {
  return {
    setAttributes: (attributes) => void span.setAttributes(attributes),
    addEvent: (name, attributes) => void span.addEvent(name, attributes),
    propagationHeaders() {
      const headers: Record<string, string> = {};
      propagator.inject(trace.setSpan(ROOT_CONTEXT, span), headers, defaultTextMapSetter);
      return headers;
    },
  };
}

// Private: a link to the client's span, without its `tracestate` (the client's to say, not ours to
// record); none without a valid `traceparent`.
function linkTo(client: Context): Link[] {
  const span = trace.getSpanContext(client);
  if (span === undefined || !isSpanContextValid(span)) return [];
  return [{ context: { traceId: span.traceId, spanId: span.spanId, traceFlags: span.traceFlags, isRemote: true } }];
}

// Private: OTEL_TRACES_SAMPLER and its ratio as a sampler.
function samplerFor({ sampler, samplerRatio }: TracingConfig): Sampler {
  switch (sampler) {
    case 'always_on': return new AlwaysOnSampler();
    case 'always_off': return new AlwaysOffSampler();
    case 'traceidratio': return new TraceIdRatioBasedSampler(samplerRatio);
    case 'parentbased_always_on': return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off': return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio': return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(samplerRatio) });
  }
}

// Private: reads a Fetch `Headers` for the propagator (whose default getter reads plain objects).
const headersGetter = {
  get: (headers: Headers, key: string) => headers.get(key) ?? undefined,
  keys: (headers: Headers) => [...headers.keys()],
};
