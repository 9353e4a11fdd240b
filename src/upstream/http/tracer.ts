/**
 * The hook through which the gateway traces the upstream layer (OpenTelemetry client spans and
 * the W3C `traceparent` header) without this layer knowing of OpenTelemetry. Like the observers,
 * it is optional: without one, the client and the token manager do no tracing work at all.
 */

/** Values a span attribute may take; never a token, a secret or a header. */
export type SpanAttributes = Record<string, string | number | boolean>;

/** The span of one upstream call or token request, as the upstream layer sees it. */
export interface UpstreamSpan {
  setAttributes(attributes: SpanAttributes): void;
  addEvent(name: string, attributes: SpanAttributes): void;
  /** Headers that carry this span's trace context to the server called (`traceparent`). */
  propagationHeaders(): Record<string, string>;
}

/** Opens client spans for `createUpstreamClient` and `createTokenManager`. */
export interface UpstreamTracer {
  /**
   * Runs `run` in a client span named `name`, a child of the caller's active span, and ends the
   * span when `run` settles; a rejection is recorded on it with its error `code`.
   */
  clientSpan<T>(name: string, attributes: SpanAttributes, run: (span: UpstreamSpan) => Promise<T>): Promise<T>;
}
