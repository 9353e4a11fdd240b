import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type Harness } from '../../helpers/gateway.js';

describe('arguments of nested index fields', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startGateway();
  });
  afterAll(async () => h.close());

  it.each([
    ['availability with a radius and no point', (g: string) => `{ product(goodsCode: "${g}") { availability(radiusKm: 5) { stock } } }`],
    ['availability with a latitude off the globe', (g: string) => `{ product(goodsCode: "${g}") { availability(near: { lat: 91, lng: 0 }) { stock } } }`],
    ['availability of no lane at all', (g: string) => `{ product(goodsCode: "${g}") { availability(first: 0) { stock } } }`],
    ['a page 0 of a city\'s sites', () => `{ city(code: "SH") { sites(page: 0) { total } } }`],
    ["an opening time that is no time", () => `{ site(code: "S000001") { isOpen(at: "25:00") } }`],
  ])('refuses %s with BAD_USER_INPUT before any upstream call', async (_, query) => {
    h.mock.resetCounters();
    const answer = await h.query(query(h.mock.catalog.products[0]!.goodsCode));
    expect(answer.data ?? null).toBeNull();
    expect(answer.errors?.map((error) => error.extensions?.code)).toEqual(['BAD_USER_INPUT']);
    expect(h.mock.callLog()).toEqual([]);
  });

  it('checks arguments given as variables too, and names the bad value', async () => {
    h.mock.resetCounters();
    const answer = await h.query(
      'query ($near: GeoInput) { product(goodsCode: "G00001") { availability(near: $near) { stock } } }',
      { near: { lat: 10, lng: 190 } },
    );
    expect(answer.errors?.[0]?.message).toBe('near.lng must be from -180 to 180, but got: 190');
    expect(h.mock.callLog()).toEqual([]);
  });

  it('prices first as what it is, a bound on the answer: first up to the maximum runs, beyond it is BAD_USER_INPUT', async () => {
    const site = h.mock.catalog.sites[0]!;
    const near = (first: number) => `{ sitesNear(lat: ${site.lat}, lng: ${site.lng}, radiusKm: 1000, first: ${first}) {
      distanceKm site { code name address enabled isOpen stockSummary { lanes totalStock } } } }`;
    const most = await h.query(near(100));
    expect(most.errors).toBeUndefined();
    expect(most.data.sitesNear.length).toBeGreaterThan(0);
    const beyond = await h.query(near(101));
    expect(beyond.errors?.map((error) => error.extensions?.code)).toEqual(['BAD_USER_INPUT']);
    expect(beyond.errors?.[0]?.message).toBe('first must be from 1 to 100, but got: 101');
  });
});
