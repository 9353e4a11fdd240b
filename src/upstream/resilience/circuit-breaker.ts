/**
 * One circuit breaker per upstream operation (path): when most recent calls of an operation
 * failed, further calls fail fast instead of piling onto a broken upstream, and one probe call
 * per cool-down finds out whether it is back.
 *
 * - closed: calls go through; each settled call counts in a rolling window of `windowMs`. When a
 *   failure leaves at least `minimumCalls` calls in the window, `failureRatio` or more of them
 *   failures, the circuit opens.
 * - open: calls fail at once (no network) for `cooldownMs`.
 * - half-open: the first call after the cool-down is the one probe; others fail fast while it
 *   runs. Its success closes the circuit (with an empty window); its failure opens it again. A
 *   probe that says nothing about the upstream (the caller left) lets the next call probe.
 *
 * Calls settled in an earlier state (e.g. a slow call admitted while closed that fails after
 * the circuit opened) do not count. A call admitted while closed that waited in the bulkhead
 * queue until the circuit opened fails fast when its turn comes (`recheck`), so opening also
 * drains the queue.
 *
 * An own breaker rather than cockatiel's `circuitBreaker`: its `SamplingBreaker` asks for a
 * minimum rate (`minimumRps`), not a minimum count of calls; while half-open it makes the other
 * calls wait for the probe (not honouring their signal) instead of failing fast; a probe ending
 * in an error its filter does not handle (here: the caller's abort) closes the circuit; and it
 * reads `Date.now`, which tests cannot replace.
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
  /** The clock (its monotonic face): the window and the cooldown. */
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

// Private: the breaker of one path. `generation` changes with every state change; a pass
// remembers the generation it was let through in, so stale outcomes are told apart.
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

// Private: counts of the calls settled within the last `windowMs` (to a tenth of it), kept in
// ten buckets so memory stays the same however busy the path is.
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
