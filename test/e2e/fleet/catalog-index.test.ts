import { afterEach, describe, expect, it } from 'vitest';
import { callsByPath } from '../../helpers/gateway.js';
import { startFleet, succeeded, until, type Fleet } from './fleet.js';

const SITES = '/api/site/list-with-points';
const PRODUCTS = '/api/products/list';

describe('the catalog index across replicas', () => {
  let fleet: Fleet | undefined;
  afterEach(async () => {
    await fleet?.close();
    fleet = undefined;
  });

  it('is built by one replica at a time and its result shared: a cold fleet walks each list once', async () => {
    fleet = await startFleet({ mock: { catalog: { sites: 300, products: 160 }, latencyMs: 30 } });
    const site = fleet.mock.catalog.sites[0]!;
    const query = `{ sitesNear(lat: ${site.lat}, lng: ${site.lng}, radiusKm: 50) { site { code } } searchProducts(first: 5) { goodsCode } }`;
    const answers = await Promise.all([fleet.a.query(query), fleet.b.query(query), fleet.a.query(query), fleet.b.query(query)]);
    expect(answers.every(succeeded)).toBe(true);
    expect(answers[1]!.data).toEqual(answers[0]!.data);
    const cap = fleet.mock.behaviour.maxPageSize;
    expect(callsByPath(fleet.mock)).toEqual({ [SITES]: Math.ceil(300 / cap), [PRODUCTS]: Math.ceil(160 / cap) });
  });

  it('is refreshed by one replica when both find it old', async () => {
    fleet = await startFleet({ env: { INDEX_REFRESH_S: '1' }, mock: { latencyMs: 20 } });
    const goodsCode = fleet.mock.catalog.products[0]!.goodsCode;
    const query = `{ product(goodsCode: "${goodsCode}") { totalStock } }`;
    await Promise.all([fleet.a.query(query), fleet.b.query(query)]);
    fleet.mock.resetCounters();
    // Past the interval each replica answers at once and starts a refresh: one walk between them.
    // Redis entries age on the wall clock, which the harness's manual clocks do not move: wait too.
    fleet.a.clock.advance(1_100);
    fleet.b.clock.advance(1_100);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const answers = await Promise.all([fleet.a.query(query), fleet.b.query(query)]);
    expect(answers.every(succeeded)).toBe(true);
    const pages = Math.ceil(fleet.mock.catalog.sites.length / fleet.mock.behaviour.maxPageSize);
    await until(async () => fleet!.mock.calls(SITES) >= pages && fleet!.mock.inFlight() === 0);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(fleet.mock.calls(SITES)).toBe(pages);
  });
});

