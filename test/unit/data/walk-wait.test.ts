/**
 * A site asked for while a walk that brings it is in flight waits for the walk, but not past half
 * of the time its caller has left: a walk that slow leaves the caller its own detail call, not a
 * REQUEST_TIMEOUT for having waited.
 */
import { describe, expect, it } from 'vitest';
import { systemClock } from '../../../src/base/clock.js';
import { createLruCache } from '../../../src/cache/lru-cache.js';
import { createSources } from '../../../src/data/sources.js';
import type { UpstreamApi } from '../../../src/upstream/api.js';
import type { SiteRecord } from '../../../src/upstream/records.js';
import { until } from '../../helpers/http.js';

const site = (code: string) => ({ code, name: `Site ${code}`, points: [] }) as unknown as SiteRecord;

// Private: an api whose list-with-points never answers (until its caller gives up) and whose details do, counted.
function hangingWalkApi() {
  const calls = { details: 0, pages: 0 };
  const hang = (signal?: AbortSignal) => new Promise<never>((_, reject) => signal?.addEventListener('abort', () => reject(signal.reason)));
  const api = {
    list: (_kind: string, _page: number, _size: number, options?: { signal?: AbortSignal }) => {
      calls.pages += 1;
      return hang(options?.signal);
    },
    detail: async (_kind: string, code: string) => {
      calls.details += 1;
      return site(code);
    },
  } as unknown as UpstreamApi;
  return { api, calls };
}

describe('a site asked for during a walk that brings it', () => {
  const ttl = { citiesMs: 60_000, sitesMs: 60_000, productsMs: 60_000 };

  it('waits at most half of its caller\'s time left, then asks for its own detail', { timeout: 8000 }, async () => {
    const { api, calls } = hangingWalkApi();
    const sources = createSources(api, createLruCache({ maxEntries: 100, clock: systemClock }), ttl, systemClock);
    const walker = new AbortController();
    // A walk in flight with no deadline of its own (e.g. another request's `Site.city`).
    void sources.citiesOfSites(['S1'], { signal: walker.signal }).catch(() => undefined);
    await until(() => calls.pages === 1);

    // 1 s left: it waits half a second at most, far less than the walk's 10 s wait.
    const found = await sources.site('S2', { timeLeftMs: () => 1000 });
    expect(found?.code).toBe('S2');
    expect(calls.details).toBe(1);
    walker.abort();
  });

  it('asks for its detail at once when its deadline has passed', { timeout: 4000 }, async () => {
    const { api, calls } = hangingWalkApi();
    const sources = createSources(api, createLruCache({ maxEntries: 100, clock: systemClock }), ttl, systemClock);
    const walker = new AbortController();
    void sources.citiesOfSites(['S1'], { signal: walker.signal }).catch(() => undefined);
    await until(() => calls.pages === 1);
    expect((await sources.site('S3', { timeLeftMs: () => -5 }))?.code).toBe('S3');
    expect(calls.details).toBe(1);
    walker.abort();
  });
});
