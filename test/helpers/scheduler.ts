/**
 * A scheduler a test drives by hand (the mock's demo sales take one): `tick()` runs every
 * registered task once, as if its interval had passed, so no test waits on a timer.
 */
import type { Scheduler } from '../../src/mock-upstream/index.js';

export interface ManualScheduler extends Scheduler {
  /** Runs every task not stopped, once. */
  tick(): void;
  /** The interval of each task registered, in ms. */
  readonly intervals: number[];
  /** Tasks still running. */
  running(): number;
}

export function createManualScheduler(): ManualScheduler {
  const tasks = new Set<() => void>();
  const intervals: number[] = [];
  return {
    every(ms, run) {
      intervals.push(ms);
      const task = () => run();
      tasks.add(task);
      return () => void tasks.delete(task);
    },
    tick: () => tasks.forEach((task) => task()),
    intervals,
    running: () => tasks.size,
  };
}
