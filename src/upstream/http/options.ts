/** The options of `createUpstreamClient`, their defaults and checks; times in ms. */
import type { Clock } from '../../base/clock.js';
import type { Dispatcher } from 'undici';
import type { Logger } from '../../base/logger.js';
import type { BreakerOptions } from '../resilience/circuit-breaker.js';
import type { BulkheadOptions } from '../resilience/bulkhead.js';
import type { TokenManager } from '../contracts.js';
import type { UpstreamObserver } from './observer.js';
import type { RetryPolicy } from '../resilience/retry.js';
import type { UpstreamTracer } from './tracer.js';

export interface UpstreamClientOptions {
  /** The upstream's base address, e.g. `https://api.example.com` (a path prefix is kept). Required. */
  baseUrl: string;
  /** Bound on each attempt (connect, headers, body), in ms; a `signal` bounds the whole call. Required. */
  timeoutMs: number;
  /** Supplies the bearer token; a token the upstream rejects is invalidated here. Required. */
  tokens: TokenManager;
  /** Dispatcher for API calls. Default: an own keep-alive undici `Pool`, closed by `close()`. */
  dispatcher?: Dispatcher;
  /** Receives retries, circuit changes and failures. Default: silent. */
  logger?: Logger;
  /** Told of every attempt and its outcome. Default: none. */
  observer?: UpstreamObserver;
  /** Opens a client span per call, whose `traceparent` each attempt sends. Default: none. */
  tracer?: UpstreamTracer;
  /** A body longer than this many bytes fails with `UPSTREAM_UNAVAILABLE`, never retried. Default: 10 MiB. */
  maxBodyBytes?: number;
  /** Extra attempts after a transient failure (network, timeout, 5xx, a 2xx not an envelope). Default: 2. */
  retries?: number;
  /** Ceiling of the first retry's jittered pause, in ms, doubling per retry. Default: 50. */
  retryBaseDelayMs?: number;
  /** The pause ceiling never grows beyond this, in ms. Default: 1000. */
  retryMaxDelayMs?: number;
  /** Source of the jitter: a number in [0, 1). Default: `Math.random`. */
  random?: () => number;
  /** Rolling window of each path's circuit breaker, in ms. Default: 10 000. */
  breakerWindowMs?: number;
  /** Calls of a path within the window below which its circuit never opens. Default: 5. */
  breakerMinimumCalls?: number;
  /** Share (0–1] of transient failures in the window from which a path's circuit opens. Default: 0.5. */
  breakerFailureRatio?: number;
  /** How long an open circuit fails calls fast before one probe call goes through, in ms. Default: 5000. */
  breakerCooldownMs?: number;
  /** API calls in flight at most; also the own pool's connections. Default: `connections`, else 32. */
  maxConcurrency?: number;
  /** API calls waiting for a slot at most; one more fails with `UPSTREAM_UNAVAILABLE`. Default: 1000. */
  maxQueue?: number;
  /** @deprecated Use `maxConcurrency`, which also sizes the pool. */
  connections?: number;
  /** Breakers and durations use its monotonic face. */
  clock: Clock;
}

/** The options with every default filled in and every value checked. */
export interface ClientSettings {
  baseUrl: string;
  clock: Clock;
  timeoutMs: number;
  tokens: TokenManager;
  dispatcher: Dispatcher | undefined;
  logger: Logger | undefined;
  observer: UpstreamObserver | undefined;
  tracer: UpstreamTracer | undefined;
  maxBodyBytes: number;
  connections: number;
  retry: RetryPolicy;
  breaker: Omit<BreakerOptions, 'onStateChange'>;
  bulkhead: BulkheadOptions;
}

const DEFAULTS = {
  maxBodyBytes: 10 * 1024 * 1024,
  retries: 2,
  retryBaseDelayMs: 50,
  retryMaxDelayMs: 1000,
  breakerWindowMs: 10_000,
  breakerMinimumCalls: 5,
  breakerFailureRatio: 0.5,
  breakerCooldownMs: 5000,
  maxConcurrency: 32,
  maxQueue: 1000,
} as const;

/** Fills in defaults; throws a `RangeError` naming every bad option, with its value. */
export function resolveClientOptions(options: UpstreamClientOptions): ClientSettings {
  const problems: string[] = [];
  const count = (name: keyof typeof DEFAULTS, min: number, fallback?: number): number => {
    const value = options[name] ?? fallback ?? DEFAULTS[name];
    if (!Number.isInteger(value) || value < min) problems.push(`${name} must be an integer >= ${min}, but got: ${value}`);
    return value;
  };
  const settings: ClientSettings = {
    baseUrl: options.baseUrl,
    clock: options.clock,
    timeoutMs: options.timeoutMs,
    tokens: options.tokens,
    dispatcher: options.dispatcher,
    logger: options.logger,
    observer: options.observer,
    tracer: options.tracer,
    maxBodyBytes: count('maxBodyBytes', 1),
    connections: 0,
    retry: {
      retries: count('retries', 0),
      baseDelayMs: count('retryBaseDelayMs', 0),
      maxDelayMs: count('retryMaxDelayMs', 0),
      random: options.random ?? Math.random,
    },
    breaker: {
      windowMs: count('breakerWindowMs', 1),
      minimumCalls: count('breakerMinimumCalls', 1),
      failureRatio: ratio(options.breakerFailureRatio ?? DEFAULTS.breakerFailureRatio, problems),
      cooldownMs: count('breakerCooldownMs', 0),
      clock: options.clock,
    },
    bulkhead: { maxConcurrency: count('maxConcurrency', 1, options.connections), maxQueue: count('maxQueue', 0) },
  };
  settings.connections = options.connections ?? settings.bulkhead.maxConcurrency;
  if (!(options.timeoutMs > 0)) problems.push(`timeoutMs must be a number of ms > 0, but got: ${options.timeoutMs}`);
  if (problems.length > 0) throw new RangeError(`createUpstreamClient: ${problems.join('; ')}`);
  return settings;
}

function ratio(value: number, problems: string[]): number {
  if (!(value > 0 && value <= 1)) problems.push(`breakerFailureRatio must be in (0, 1], but got: ${value}`);
  return value;
}
