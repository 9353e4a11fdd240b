/**
 * A list's size, as the upstream's pages state it, prices the walks of the upstream budget. A
 * wrong one (a billion) must neither cost the estimate its CPU nor refuse the list's queries for
 * good once the upstream is well again (found by the upstream fuzzer, seed 997712855).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createLruCache } from '../../src/cache/lru-cache.js';
import { createSources } from '../../src/loaders/sources.js';
import type { UpstreamApi } from '../../src/upstream/api.js';
import { createManualClock, startGateway, type Harness } from '../helpers/gateway.js';

const CITY = '{ city(code: "SH") { code name } }';
const CITIES = '/api/city/list';
const billion = (items: unknown[]) => ({ raw: { body: JSON.stringify({ code: 0, msg: 'success', result: { items, total: 1e9 } }) } });

describe('the size of a list', () => {
  let h: Harness;
  afterEach(() => h.close());

  it('prices a walk at most as the walk would run, and is believed only for the list\'s TTL', async () => {
    h = await startGateway();
    const [city] = h.mock.catalog.cities;
    h.mock.fault(CITIES, billion([{ id: city!.id, name: city!.name, code: city!.code }]));
    expect((await h.query(CITY)).errors?.length).toBeGreaterThan(0);
    // The estimate counts the thousand calls a walk stops at, not the ten million pages a billion
    // makes (which took 12 s of CPU per estimate).
    const refused = await h.query(CITY);
    expect(refused.errors?.[0]?.extensions).toMatchObject({ code: 'UPSTREAM_BUDGET_EXCEEDED' });
    expect(refused.errors?.[0]?.extensions?.estimate).toBeLessThanOrEqual(1000);

    h.mock.clearFaults();
    h.clock.advance(3601 * 1000); // past CACHE_TTL_CITIES_S: the pages that said it have expired too
    const answer = await h.query(CITY);
    expect(answer.errors).toBeUndefined();
    expect(answer.data.city.code).toBe('SH');
  });
});

describe('the size a page states', () => {
  it('is believed for the list\'s TTL, then asked again', async () => {
    const clock = createManualClock();
    const api = { listCities: async () => ({ items: [], total: 1e9 }) } as unknown as UpstreamApi;
    const sources = createSources(api, createLruCache({ maxEntries: 100, clock }), { citiesMs: 60_000, sitesMs: 1000, productsMs: 1000, clock });
    await sources.page('cities', 1, 10, {});
    expect(sources.facts('cities').total).toBe(1e9);
    clock.advance(60_001);
    expect(sources.facts('cities').total).toBeUndefined();
  });
});
