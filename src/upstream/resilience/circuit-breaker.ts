/**
 * One circuit breaker per upstream path, so calls fail fast instead of piling onto a broken
 * upstream. Closed: settled calls count in a rolling window, and enough failures open it. Open:
 * calls fail at once for `cooldownMs`. Half-open: one probe goes through, the others fail fast;
 * it closes or reopens the circuit. Calls settled in an earlier state do not count, and queued
 * calls fail fast once it opens (`recheck`).
 */
import type { Clock } from '../../base/clock.js';
import { UpstreamError } from '../errors.js';

export type BreakerState = 'closed' | 'open' | 'half-open';

/** What one settled call says about the upstream: `ignore` for no news (the caller left). */
export type Verdict = 'success' | 'failure' | 'ignore';

export interface BreakerOptions {
  /** Length of the rolling window, in ms. */
  windowMs: number;
  /** Calls in the window below which the circuit never opens. */
  minimumCalls: number;
  /** Share of failed calls in the window (0–1] from which the circuit opens. */
  failureRatio: number;
  /** How long an open circuit refuses calls before it lets one probe through, in ms. */
  cooldownMs: number;
  /** Its monotonic face times the window and the cooldown. */
  clock: Clock;
  /** Told of every state change. */
  onStateChange?(path: string, state: BreakerState): void;
}

/** A call let through; settle it exactly once (later calls are ignored). */
export interface BreakerPass {
  /** Throws the fail-fast error if the circuit opened since the call was let through. */
  recheck(): void;
  settle(verdict: Verdict): void;
}

export interface CircuitBreakers {
  /** Lets a call on `path` through, or throws `UPSTREAM_UNAVAILABLE` ("circuit is open"). */
  enter(path: string): BreakerPass;
  /** The state of every path seen so far. */
  states(): Record<string, BreakerState>;
}

/** A breaker per path, each created on the path's first call. */
export function createCircuitBreakers(options: BreakerOptions): CircuitBreakers {
  const breakers = new Map<string, PathBreaker>();
  return {
    enter(path) {
      let breaker = breakers.get(path);
      if (breaker === undefined) {
        breaker = createPathBreaker(path, options);
        breakers.set(path, breaker);
      }
      return breaker.enter();
    },
    states: () => Object.fromEntries([...breakers].map(([path, breaker]) => [path, breaker.state()])),
  };
}

interface PathBreaker {
  state(): BreakerState;
  enter(): BreakerPass;
}

// Private: one path's breaker; a pass keeps the `generation` it entered in, so stale outcomes are ignored.
function createPathBreaker(path: string, options: BreakerOptions): PathBreaker {
  const window = createOutcomeWindow(options.windowMs, options.clock);
  let state: BreakerState = 'closed';
  let openUntil = 0;
  let probing = false;
  let generation = 0;

  function moveTo(next: BreakerState): void {
    state = next;
    generation += 1;
    probing = false;
    if (next === 'open') openUntil = options.clock.monotonic() + options.cooldownMs;
    if (next === 'closed') window.clear();
    options.onStateChange?.(path, next);
  }

  function current(): BreakerState {
    if (state === 'open' && options.clock.monotonic() >= openUntil) moveTo('half-open');
    return state;
  }

  function refusal(): UpstreamError {
    const why = state === 'open'
      ? `next probe in ${Math.max(0, Math.ceil(openUntil - options.clock.monotonic()))} ms`
      : 'a probe call is in flight';
    return new UpstreamError('UPSTREAM_UNAVAILABLE', `GET ${path} not sent: its circuit is open after repeated upstream failures (${why})`, { path, reason: 'circuit_open' });
  }

  function record(verdict: Verdict): void {
    if (state === 'half-open') {
      if (verdict === 'ignore') probing = false;
      else moveTo(verdict === 'success' ? 'closed' : 'open');
      return;
    }
    if (verdict === 'ignore') return;
    window.add(verdict === 'failure');
    const { calls, failures } = window.totals();
    if (verdict === 'failure' && calls >= options.minimumCalls && failures >= options.failureRatio * calls) moveTo('open');
  }

  return {
    state: current,
    enter() {
      const entered = current();
      if (entered === 'open' || (entered === 'half-open' && probing)) throw refusal();
      if (entered === 'half-open') probing = true;
      const ticket = generation;
      let settled = false;
      return {
        recheck() {
          if (ticket !== generation && current() !== 'closed') throw refusal();
        },
        settle(verdict) {
          if (settled) return;
          settled = true;
          if (ticket === generation) record(verdict);
        },
      };
    },
  };
}

const BUCKETS = 10;

interface Bucket {
  /** `floor(time / bucketMs)` of the calls it holds. */
  index: number;
  calls: number;
  failures: number;
}

// Private: calls settled within the last `windowMs`, in ten buckets so memory stays constant.
function createOutcomeWindow(windowMs: number, clock: Clock) {
  const bucketMs = windowMs / BUCKETS;
  let buckets: Bucket[] = [];
  const indexNow = (): number => Math.floor(clock.monotonic() / bucketMs);
  return {
    add(failed: boolean): void {
      const index = indexNow();
      const slot = ((index % BUCKETS) + BUCKETS) % BUCKETS;
      let bucket = buckets[slot];
      if (bucket?.index !== index) {
        bucket = { index, calls: 0, failures: 0 };
        buckets[slot] = bucket;
      }
      bucket.calls += 1;
      if (failed) bucket.failures += 1;
    },
    totals(): { calls: number; failures: number } {
      const oldest = indexNow() - BUCKETS + 1;
      const live = buckets.filter((bucket) => bucket.index >= oldest);
      return {
        calls: live.reduce((sum, bucket) => sum + bucket.calls, 0),
        failures: live.reduce((sum, bucket) => sum + bucket.failures, 0),
      };
    },
    clear(): void {
      buckets = [];
    },
  };
}
