/**
 * OpenTelemetry traces: one tracer provider per gateway, exporting OTLP/HTTP (JSON) in batches.
 * A request's tree: its server span, the GraphQL operation, then a client span per upstream call
 * and token request, and a span per catalog walk. Spans nest through the active context, carried
 * by AsyncLocalStorage across awaits and into DataLoader batches. Tracing off is `undefined`:
 * no provider, no hooks, one check per caller. A client's trace context is not trusted by default
 * (its sampled flag would decide what is exported, its `tracestate` reach the upstream): the
 * request starts a trace of its own that links the client's span.
 */
import type { IncomingHttpHeaders } from 'node:http';
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
  /** Starts a request's server span, not made active: a child of `traceparent` if trusted, else a new trace linking it. */
  requestSpan(name: string, attributes: Attributes, headers: IncomingHttpHeaders): Span;
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
 * The gateway's tracing for `config`: the context manager is registered once per process, the
 * tracer provider stays private (not global), so two gateways in one process trace apart.
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
 * Marks `span` failed by `error`: status ERROR, `error.type` its code, and an exception event with
 * a short message (the gateway's and upstream's messages carry no token or secret).
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

// Private: a link to the client's span, without its `tracestate`; none without a valid `traceparent`.
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
  get: (headers: IncomingHttpHeaders, key: string) => headers[key],
  keys: (headers: IncomingHttpHeaders) => Object.keys(headers),
};
