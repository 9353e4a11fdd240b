/**
 * Retries of one upstream call: exponential backoff with full jitter, cut short by the caller.
 *
 * An own loop rather than cockatiel's `retry`: in cockatiel 3.2.1 the pause between attempts is
 * a plain timer that ignores the caller's signal (it is only checked before the pause), so a
 * caller whose deadline passed would still wait the backoff out; and its jitter reads
 * `Math.random`, which tests cannot replace.
 */
import { abortedByCaller } from '../errors.js';

export interface RetryPolicy {
  /** Extra attempts after the first one, at most (0: no retries). */
  retries: number;
  /** Ceiling of the first pause, in ms; doubles with each retry. */
  baseDelayMs: number;
  /** The ceiling never grows beyond this many ms. */
  maxDelayMs: number;
  /** A number in [0, 1): `Math.random` or a test's own. */
  random: () => number;
}

export interface RetryContext {
  policy: RetryPolicy;
  /** The caller's signal: once aborted, no further attempt is made and a pause ends at once. */
  signal?: AbortSignal | undefined;
  /** The operation's path, for the abort error. */
  path: string;
  /** Whether a failure is worth another attempt. */
  isRetryable(error: unknown): boolean;
  /** Told before each pause: the failure, the number of the coming retry (1-based) and the pause. */
  onRetry?(error: unknown, retry: number, delayMs: number): void;
}

/**
 * The pause before retry `retry` (0 for the first), "full jitter": uniform in
 * [0, min(maxDelayMs, baseDelayMs × 2^retry)). Spreading retries over the whole range keeps
 * callers that failed together from coming back together.
 */
export function backoffDelayMs(policy: RetryPolicy, retry: number): number {
  return policy.random() * Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry);
}

/**
 * Runs `attempt` until it resolves, fails with an error `isRetryable` refuses, `retries` retries
 * are spent or the caller aborts; rejects with the last attempt's error, or with
 * `UPSTREAM_UNAVAILABLE` ("aborted by the caller") when the caller aborts during a pause.
 */
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

/**
 * Resolves after `ms`; rejects with `UPSTREAM_UNAVAILABLE` as soon as `signal` aborts. The timer
 * is cleared on abort, so an abandoned pause keeps nothing alive.
 */
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
