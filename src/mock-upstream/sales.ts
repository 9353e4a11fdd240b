/**
 * Demo sales: the mock sells and restocks on its own, so a demo's live views move. Each site in
 * service sells from random lanes with stock; a lane at 0 for `restockTicks` ticks is refilled,
 * so stock never drains. Ticks come from an injected scheduler, so a test runs them by hand.
 */
import type { Catalog, MockLane, MockSite } from './data.js';
import { createRandom, type Random } from './random.js';

/** Runs `run` every `ms`; returns what stops it. */
export interface Scheduler {
  every(ms: number, run: () => void): () => void;
}

/** Real timers that keep no process alive. */
export const timerScheduler: Scheduler = {
  every(ms, run) {
    const timer = setInterval(run, ms);
    timer.unref();
    return () => clearInterval(timer);
  },
};

/** Options of the demo sales; all but `perMinute` optional. */
export interface SalesOptions {
  /** Items sold a minute at each site in service, on average; 0 sells nothing. */
  perMinute: number;
  /** Time between two ticks, in ms. Default 1000. */
  tickMs?: number;
  /** Ticks a lane holding a product stays at 0 before it is refilled, 1 or more. Default 30 (30 s at the default tick). */
  restockTicks?: number;
  /** The stock a refilled lane gets. Default 20, the generator's maximum. */
  capacity?: number;
  /** Where ticks come from. Default `timerScheduler`. */
  scheduler?: Scheduler;
  /** Seed of the sales' own random source. Default 1. */
  seed?: number;
}

/** What one tick did. */
export interface TickResult {
  /** Items sold (one each from a lane). */
  sold: number;
  /** Lanes refilled to capacity. */
  restocked: number;
}

/** Running demo sales. */
export interface Sales {
  /** One tick now, as the scheduler would run it. */
  tick(): TickResult;
  /** No more ticks. Idempotent. */
  stop(): void;
}

/** Starts selling from `catalog` (changed in place) on the scheduler's ticks. */
export function startSales(catalog: Catalog, options: SalesOptions): Sales {
  const tickMs = options.tickMs ?? 1000;
  const restockTicks = options.restockTicks ?? 30;
  const capacity = options.capacity ?? 20;
  check(options.perMinute >= 0 && Number.isFinite(options.perMinute), 'perMinute must be a number >= 0', options.perMinute);
  check(tickMs > 0 && Number.isFinite(tickMs), 'tickMs must be a number > 0', tickMs);
  check(Number.isInteger(restockTicks) && restockTicks >= 1, 'restockTicks must be an integer >= 1', restockTicks);
  check(Number.isInteger(capacity) && capacity >= 1, 'capacity must be an integer >= 1', capacity);
  const random = createRandom(options.seed ?? 1);
  const emptyFor = new Map<MockLane, number>();
  let owed = 0;
  const tick = (): TickResult => {
    const open = catalog.sites.filter((site) => site.state === 1);
    owed += (options.perMinute * open.length * tickMs) / 60_000;
    let sold = 0;
    for (; owed >= 1; owed -= 1) if (sellOne(open, random)) sold += 1;
    return { sold, restocked: restock(open, emptyFor, restockTicks, capacity) };
  };
  const stop = (options.scheduler ?? timerScheduler).every(tickMs, tick);
  return { tick, stop };
}

// Private: one item from a random lane with stock of a random site; false when that site has none.
function sellOne(sites: readonly MockSite[], random: Random): boolean {
  if (sites.length === 0) return false;
  const lanes = random.pick(sites).points.flatMap((point) => point.cargolanes.filter((lane) => lane.goodsCode && lane.stock > 0));
  if (lanes.length === 0) return false;
  random.pick(lanes).stock -= 1;
  return true;
}

// Private: counts the ticks each empty lane has stood at 0, and refills those empty long enough.
function restock(sites: readonly MockSite[], emptyFor: Map<MockLane, number>, restockTicks: number, capacity: number): number {
  let restocked = 0;
  for (const site of sites) {
    for (const point of site.points) {
      for (const lane of point.cargolanes) {
        if (!lane.goodsCode || lane.stock > 0) {
          emptyFor.delete(lane);
          continue;
        }
        const ticks = (emptyFor.get(lane) ?? 0) + 1;
        if (ticks < restockTicks) emptyFor.set(lane, ticks);
        else {
          lane.stock = capacity;
          emptyFor.delete(lane);
          restocked += 1;
        }
      }
    }
  }
  return restocked;
}

// Private: a bad option is the caller's bug: say which and what it got.
function check(ok: boolean, message: string, got: number): void {
  if (!ok) throw new RangeError(`demo sales: ${message}, but got: ${got}`);
}
