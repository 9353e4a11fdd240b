/**
 * Retries of one upstream call: exponential backoff with full jitter, whose pause ends when the
 * caller's signal aborts, and whose randomness a test can replace.
 */
import { abortedByCaller } from '../errors.js';

export interface RetryPolicy {
  /** Extra attempts after the first one, at most. */
  retries: number;
  /** Ceiling of the first pause, in ms; doubles with each retry. */
  baseDelayMs: number;
  /** The ceiling never grows beyond this many ms. */
  maxDelayMs: number;
  /** A number in [0, 1). */
  random: () => number;
}

export interface RetryContext {
  policy: RetryPolicy;
  /** Once aborted, no further attempt is made and a pause ends at once. */
  signal?: AbortSignal | undefined;
  /** The operation's path, for the abort error. */
  path: string;
  /** Whether a failure is worth another attempt. */
  isRetryable(error: unknown): boolean;
  /** Told before each pause, with the coming retry's number (1-based). */
  onRetry?(error: unknown, retry: number, delayMs: number): void;
}

/** The pause before retry `retry` (from 0), uniform below its ceiling, so callers that failed together spread. */
export function backoffDelayMs(policy: RetryPolicy, retry: number): number {
  return policy.random() * Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry);
}

/** Runs `attempt` until it resolves, its error is not retryable, retries run out or the caller aborts. */
export async function withRetries<T>(attempt: () => Promise<T>, context: RetryContext): Promise<T> {
  for (let retry = 0; ; retry += 1) {
    try {
      return await attempt();
    } catch (error) {
      if (retry >= context.policy.retries || context.signal?.aborted || !context.isRetryable(error)) throw error;
      const delayMs = backoffDelayMs(context.policy, retry);
      context.onRetry?.(error, retry + 1, delayMs);
      await sleep(delayMs, context.signal, context.path);
    }
  }
}

/** Resolves after `ms`; rejects with `UPSTREAM_UNAVAILABLE`, clearing the timer, as soon as `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal | undefined, path: string): Promise<void> {
  if (signal?.aborted) return Promise.reject(abortedByCaller(path));
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(abortedByCaller(path));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
