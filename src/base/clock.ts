/**
 * The one clock: every component takes `clock: Clock`, so tests move time by hand; only the
 * composition root hands out `systemClock` (lint enforces both). A wait on real timers is bounded
 * by a real timer (`deadline`), since a test's clock stands still while it sleeps.
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
