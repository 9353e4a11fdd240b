/**
 * Every upstream failure is an `UpstreamError` with a registry code (base/errors.ts); only `code`
 * and `upstreamCode` reach a client. What the upstream wrote is redacted and goes to the log only.
 */
import type { ErrorCode } from '../base/errors.js';

export const UPSTREAM_CODES = ['UPSTREAM_ERROR', 'UPSTREAM_UNAVAILABLE', 'UPSTREAM_AUTH_FAILED'] as const satisfies readonly ErrorCode[];
export type UpstreamErrorCode = (typeof UPSTREAM_CODES)[number];

/** Why a call got no usable answer when the status and envelope do not say it (a metrics label). */
export type UpstreamFailureReason = 'timeout' | 'network' | 'aborted' | 'too_large' | 'circuit_open' | 'queue_full';

export interface UpstreamErrorDetails {
  /** The operation's path, never a full URL. */
  path?: string;
  /** The envelope's `code`, for `UPSTREAM_ERROR`. */
  upstreamCode?: number;
  /** The envelope's `msg`, secrets redacted, for the log only. */
  upstreamMsg?: string;
  /** HTTP status, when one was received. */
  status?: number;
  transient?: boolean;
  reason?: UpstreamFailureReason;
  /** The answer was an HTML page where JSON was due. */
  html?: boolean;
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
   * A failure that may pass by itself (network, timeout, a 2xx or 5xx without an envelope): retried
   * and counted by the breaker. False for envelope errors, 4xx and the gateway's own refusals.
   */
  readonly transient: boolean;
  /** `undefined` when the status or the envelope tells the story. */
  readonly reason: UpstreamFailureReason | undefined;
  /** The answer was an HTML page (a proxy's error page, a login form) where JSON was due. */
  readonly html: boolean;

  constructor(code: UpstreamErrorCode, message: string, details: UpstreamErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.code = code;
    this.path = details.path;
    this.upstreamCode = details.upstreamCode;
    this.upstreamMsg = details.upstreamMsg;
    this.status = details.status;
    this.transient = details.transient ?? false;
    this.reason = details.reason;
    this.html = details.html ?? false;
  }
}

export function isUpstreamError(error: unknown): error is UpstreamError {
  return error instanceof UpstreamError;
}

/** The error of a call whose caller gave up (its `signal` aborted) before it settled. */
export function abortedByCaller(path: string): UpstreamError {
  return new UpstreamError('UPSTREAM_UNAVAILABLE', `call to ${path} was aborted by the caller`, { path, reason: 'aborted' });
}

/** `text` with each non-empty `secret` replaced by `[redacted]`, in case the upstream echoes one. */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let redacted = text;
  for (const secret of secrets) {
    if (secret !== '') redacted = redacted.split(secret).join('[redacted]');
  }
  return redacted;
}
