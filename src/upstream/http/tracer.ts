/** The optional hook through which the gateway traces the upstream layer without it knowing of OpenTelemetry. */

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
  /** Runs `run` in a client span, a child of the active one, ended (with any error `code`) when it settles. */
  clientSpan<T>(name: string, attributes: SpanAttributes, run: (span: UpstreamSpan) => Promise<T>): Promise<T>;
}
