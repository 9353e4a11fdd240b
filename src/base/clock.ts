/**
 * The one clock: every time the gateway reads comes from an injected `Clock`, so that tests move
 * it by hand and nothing else reads the time (a lint rule forbids `Date.now()`, `new Date()`
 * and `performance.now()` in src/ outside this file and the mock upstream). Every component takes
 * `clock: Clock` and reads the face it needs; only the composition root (app/, main.ts) hands out
 * `systemClock`, which lint enforces too.
 *
 * A wait that sleeps on real timers (polling Redis, a pause after a timeout) is bounded by a real
 * timer too (`deadline`), not by reading a clock: a test's clock stands still while it sleeps.
 */

export interface Clock {
  /** Milliseconds from an arbitrary start, never going back: durations, TTLs, deadlines. */
  monotonic(): number;
  /** Milliseconds since the epoch: what is shared with other processes (token lifetimes, Redis), and dates shown. */
  wall(): number;
}

/** The process's own clock. */
export const systemClock: Clock = {
  monotonic: () => performance.now(),
  wall: () => Date.now(),
};

/** A bound on a wait of real time. */
export interface Deadline {
  /** Whether the time has passed. */
  readonly passed: boolean;
  /** Stops the timer (the wait ended first); `passed` stays as it is. */
  cancel(): void;
}

/** A deadline already passed: nothing to wait for. */
export const PASSED: Deadline = { passed: true, cancel: () => {} };

/** A deadline `ms` of real time from now, on a timer that keeps no process alive. */
export function deadline(ms: number): Deadline {
  if (!(ms > 0)) return PASSED;
  let passed = false;
  const timer = setTimeout(() => (passed = true), ms);
  timer.unref();
  return {
    get passed() {
      return passed;
    },
    cancel: () => clearTimeout(timer),
  };
}
