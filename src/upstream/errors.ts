/**
 * Every failure of the upstream layer is an `UpstreamError` with one of these stable codes, the
 * registry's (base/errors.ts, which holds what a client is told of each). The GraphQL layer forwards `code` (and `upstreamCode`) as `extensions`; nothing else leaks.
 * What the upstream wrote (`upstreamMsg`, and the message that quotes it) has the client secret,
 * in every form it travels in, and the tokens redacted (`redactSecrets`); it goes to the log only.
 *
 * - `UPSTREAM_ERROR`: the upstream answered with an envelope whose `code` is not 0.
 * - `UPSTREAM_UNAVAILABLE`: network error, timeout, 5xx without an envelope, non-JSON or malformed body.
 * - `UPSTREAM_AUTH_FAILED`: the token endpoint refused the client credentials.
 */
import type { ErrorCode } from '../base/errors.js';

export const UPSTREAM_CODES = ['UPSTREAM_ERROR', 'UPSTREAM_UNAVAILABLE', 'UPSTREAM_AUTH_FAILED'] as const satisfies readonly ErrorCode[];
export type UpstreamErrorCode = (typeof UPSTREAM_CODES)[number];

/**
 * Why a call got no usable answer when the HTTP status and envelope do not say it: `timeout`,
 * `network` (connect or socket failure), `aborted` (the caller gave up), `too_large` (a body over
 * the cap), or the gateway's own refusals `circuit_open` and `queue_full`. Metrics label
 * outcomes with it (see observer.ts).
 */
export type UpstreamFailureReason = 'timeout' | 'network' | 'aborted' | 'too_large' | 'circuit_open' | 'queue_full';

export interface UpstreamErrorDetails {
  /** The operation's path, e.g. `/api/site/detail` (never a full URL with credentials or a token). */
  path?: string;
  /** The envelope's `code`, for `UPSTREAM_ERROR`. */
  upstreamCode?: number;
  /** The envelope's `msg`, secrets redacted, for `UPSTREAM_ERROR` (the log's, never a client's). */
  upstreamMsg?: string;
  /** HTTP status, when one was received. */
  status?: number;
  /** See `UpstreamError.transient`. Default: false. */
  transient?: boolean;
  /** See `UpstreamFailureReason`. Default: none. */
  reason?: UpstreamFailureReason;
  cause?: unknown;
}

export class UpstreamError extends Error {
  override name = 'UpstreamError';
  readonly code: UpstreamErrorCode;
  readonly path: string | undefined;
  readonly upstreamCode: number | undefined;
  readonly upstreamMsg: string | undefined;
  readonly status: number | undefined;
  /**
   * True when the upstream failed in a way that may pass by itself: a network error, a timeout,
   * or an answer without an envelope sent with HTTP 2xx or 5xx (an overloaded proxy, a truncated
   * or garbled body). The client retries such failures and counts them against the path's
   * circuit breaker. False for everything else: envelope errors, 4xx answers, a body over the
   * cap, refused credentials, and calls the gateway refused or gave up itself (caller abort,
   * open circuit, full queue).
   */
  readonly transient: boolean;
  /** See `UpstreamFailureReason`; `undefined` when the status or the envelope tells the story. */
  readonly reason: UpstreamFailureReason | undefined;

  constructor(code: UpstreamErrorCode, message: string, details: UpstreamErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.code = code;
    this.path = details.path;
    this.upstreamCode = details.upstreamCode;
    this.upstreamMsg = details.upstreamMsg;
    this.status = details.status;
    this.transient = details.transient ?? false;
    this.reason = details.reason;
  }
}

export function isUpstreamError(error: unknown): error is UpstreamError {
  return error instanceof UpstreamError;
}

/** The error of a call whose caller gave up (its `signal` aborted) before it settled. */
export function abortedByCaller(path: string): UpstreamError {
  return new UpstreamError('UPSTREAM_UNAVAILABLE', `call to ${path} was aborted by the caller`, { path, reason: 'aborted' });
}

/**
 * `text` with every occurrence of each non-empty `secret` replaced by `[redacted]`. Used on text
 * the upstream wrote (an envelope's `msg`) before it goes into an error, in case the upstream
 * echoes a token or the client secret back.
 */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let redacted = text;
  for (const secret of secrets) {
    if (secret !== '') redacted = redacted.split(secret).join('[redacted]');
  }
  return redacted;
}
