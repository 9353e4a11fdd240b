/**
 * Hooks through which the gateway watches the upstream layer without this layer knowing of
 * metrics or requests; optional, synchronous, never throwing. An outcome is a bounded label:
 * `ok`, `envelope_<code>`, `http_<status>`, `malformed` or an `UpstreamFailureReason`.
 */
import type { Clock } from '../../base/clock.js';
import { isUpstreamError } from '../errors.js';

/** One attempt of an API call, as it ended. */
export interface AttemptEnd {
  path: string;
  outcome: string;
  /** From the start of the exchange to its end, in ms; 0 for an attempt never sent. */
  durationMs: number;
  /** False for an attempt refused by the gateway or abandoned before it reached the wire. */
  sent: boolean;
}

/** Watches the API calls of `createUpstreamClient`, one event per attempt (retries included). */
export interface UpstreamObserver {
  /** An attempt goes on the wire (it holds a bulkhead slot); `onAttemptEnd` follows with `sent: true`. */
  onAttemptStart?(path: string): void;
  onAttemptEnd?(attempt: AttemptEnd): void;
}

/** Watches the token requests of `createTokenManager`. */
export interface TokenObserver {
  onTokenRequest?(request: { outcome: string; durationMs: number }): void;
}

/** Envelope codes beyond this magnitude share the label `envelope_other`, to bound the label set. */
const MAX_LABELLED_CODE = 99_999;

/** The outcome label of a failed attempt or token request. */
export function outcomeOf(error: unknown): string {
  if (!isUpstreamError(error)) return 'error';
  if (error.reason !== undefined) return error.reason;
  if (error.upstreamCode !== undefined) return envelopeOutcome(error.upstreamCode);
  if (error.status !== undefined) return error.status >= 200 && error.status < 300 ? 'malformed' : `http_${error.status}`;
  return 'error';
}

export function envelopeOutcome(code: number): string {
  return Math.abs(code) <= MAX_LABELLED_CODE ? `envelope_${code}` : 'envelope_other';
}

/** Runs `run`, tells `end` its outcome and duration (monotonic ms), then settles as `run` did. */
export async function observed<T>(
  clock: Clock,
  run: () => Promise<T>,
  outcomeOfValue: (value: T) => string,
  end: (outcome: string, durationMs: number) => void,
): Promise<T> {
  const startedAt = clock.monotonic();
  let outcome = 'error';
  try {
    const value = await run();
    outcome = outcomeOfValue(value);
    return value;
  } catch (error) {
    outcome = outcomeOf(error);
    throw error;
  } finally {
    end(outcome, clock.monotonic() - startedAt);
  }
}
