/**
 * The one clock: every time the gateway reads comes from an injected `Clock`, so that tests move
 * it by hand and nothing else reads the time (a lint rule forbids `Date.now()`, `new Date()`
 * and `performance.now()` in src/ outside this file and the mock upstream).
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
