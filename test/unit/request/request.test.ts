import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { systemClock } from '../../../src/base/clock.js';
import { createLogger } from '../../../src/base/logger.js';
import { coded } from '../../../src/base/graph-errors.js';
import { createRequest } from '../../../src/request/request.js';
import { createRequestScope } from '../../../src/request/scope.js';

const request = () => {
  const made = createRequest('r-1', createLogger('silent', new PassThrough()), 0);
  made.operations.push('Product');
  return made;
};

describe('the request object says whether its answer may be stored', () => {
  it('stores one operation made of fresh data until the first of it expires', () => {
    const r = request();
    r.lookedUp('miss', 5000);
    r.lookedUp('hit', 3000);
    expect(r.storable({})).toEqual({ until: 3000 });
    expect([r.cacheHits, r.cacheMisses]).toEqual([1, 1]);
  });

  it('refuses a result with errors that nobody noted before', () => {
    const r = request();
    r.lookedUp('miss', 5000);
    expect(r.storable({ errors: [coded('UPSTREAM_UNAVAILABLE')] })).toBeUndefined();
    expect(r.errorCodes.size).toBe(0);
  });

  it('refuses what it noted: errors, stale data, no known freshness, two operations', () => {
    const noted = request();
    noted.lookedUp('miss', 5000);
    noted.note({ errors: [coded('NOT_FOUND')] });
    expect(noted.storable()).toBeUndefined();
    const stale = request();
    stale.lookedUp('stale', 5000);
    expect(stale.storable()).toBeUndefined();
    expect(request().storable()).toBeUndefined();
    const batch = request();
    batch.lookedUp('miss', 5000);
    batch.operations.push('Other');
    expect(batch.storable()).toBeUndefined();
  });

  it('refuses an answer its scope saw read the time now or state its data\'s age', () => {
    for (const mark of ['time', 'age'] as const) {
      const r = request();
      r.lookedUp('miss', 5000);
      const scope = createRequestScope(() => undefined, 1000, { request: r, clock: systemClock });
      if (mark === 'time') scope.readsTheTime();
      else scope.onDataAge?.(3);
      scope.dispose();
      expect(r.storable()).toBeUndefined();
    }
  });

  it('counts a scope\'s deadline from the moment given (the request\'s arrival), not from when the scope is made', () => {
    // A clock that moves only when told: no bound depends on how fast the test runs.
    let now = 10_000;
    const clock = { monotonic: () => now, wall: () => now };
    const arrived = now;
    now += 1500;
    const late = createRequestScope(() => undefined, 1000, { from: arrived, clock });
    expect(late.timeLeftMs()).toBe(-500);
    expect(late.signal.aborted).toBe(true);
    expect((late.signal.reason as { extensions?: { code?: unknown } }).extensions?.code).toBe('REQUEST_TIMEOUT');
    const fresh = createRequestScope(() => undefined, 1000, { clock });
    expect(fresh.timeLeftMs()).toBe(1000);
    expect(fresh.signal.aborted).toBe(false);
    late.dispose();
    fresh.dispose();
  });
});
