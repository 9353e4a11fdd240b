import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { expectedSitesNear } from '../../helpers/beyond-expected.js';
import { callsByPath, startGateway, type Harness } from '../../helpers/gateway.js';

const LONG_CODE = 'x'.repeat(129);

// Private: asserts that every query is refused with BAD_USER_INPUT.
async function expectAllRefused(h: Harness, queries: string[]): Promise<void> {
  for (const query of queries) {
    const { errors } = await h.query(query);
    expect(errors?.[0]?.extensions?.code, query).toBe('BAD_USER_INPUT');
  }
}

describe('argument validation of the index fields', () => {
  let h: Harness;
  afterEach(() => h.close());

  it('refuses bad sitesNear, searchProducts and Query.sites arguments before any upstream call', async () => {
    h = await startGateway();
    const near = (args: string) => `{ sitesNear(lat: 31.2, lng: 121.4${args}) { distanceKm } }`;
    await expectAllRefused(h, [
      `{ sitesNear(lat: 90.0001, lng: 0) { distanceKm } }`,
      `{ sitesNear(lat: -91, lng: 0) { distanceKm } }`,
      `{ sitesNear(lat: 0, lng: 180.5) { distanceKm } }`,
      `{ sitesNear(lat: 0, lng: -181) { distanceKm } }`,
      near(', radiusKm: 0'), near(', radiusKm: -1'), near(', radiusKm: 1000.001'),
      near(', first: 0'), near(', first: -3'), near(', first: 101'),
      near(', cityCode: ""'), near(', cityCode: "   "'), near(`, cityCode: "${LONG_CODE}"`),
      near(', hasProduct: ""'), near(', hasProduct: " "'), near(`, hasProduct: "${LONG_CODE}"`),
      near(', openAt: "noon"'), near(', openAt: "25:00"'), near(', openAt: "12:60"'),
      near(', openAt: "2026-13-45T10:00:00Z"'),
      `{ searchProducts(first: 0) { goodsCode } }`,
      `{ searchProducts(text: "a", first: 101) { goodsCode } }`,
      `{ sites(cityCode: "") { total } }`,
      `{ sites(cityCode: "  ", enabledOnly: true) { total } }`,
      `{ sites(cityCode: "${LONG_CODE}") { total } }`,
    ]);
    expect(callsByPath(h.mock)).toEqual({});
    expect(h.mock.calls('/oauth/token')).toBe(0);
  });

  it('refuses bad availability, City.sites and isOpen arguments before any upstream call, the parent’s included', async () => {
    h = await startGateway();
    const [product, city, site] = [h.mock.catalog.products[0]!, h.mock.catalog.cities[0]!, h.mock.catalog.sites[0]!];
    const availability = (args: string) => `{ product(goodsCode: "${product.goodsCode}") { availability(${args}) { stock } } }`;
    const citySites = (args: string) => `{ city(code: "${city.code}") { sites(${args}) { total } } }`;
    await expectAllRefused(h, [
      availability('radiusKm: 5'),
      availability('near: { lat: 91, lng: 0 }'), availability('near: { lat: 0, lng: -180.5 }'),
      availability('near: { lat: 31, lng: 121 }, radiusKm: 0'),
      availability('near: { lat: 31, lng: 121 }, radiusKm: 1001'),
      availability('first: 0'), availability('first: 1001'),
      availability('cityCode: ""'), availability(`cityCode: "${LONG_CODE}"`),
      citySites('page: 0'), citySites('pageSize: 0'), citySites('pageSize: 101'),
      `{ site(code: "${site.code}") { isOpen(at: "noon") } }`,
      `{ site(code: "${site.code}") { isOpen(at: "24:30") } }`,
      `{ site(code: "${site.code}") { isOpen(at: "2026-11-21T25:00:00Z") } }`,
    ]);
    expect(callsByPath(h.mock)).toEqual({});
    expect(h.mock.calls('/oauth/token')).toBe(0);
  });

  it('accepts the bounds of every range', async () => {
    h = await startGateway();
    const edges = [{ lat: 90, lng: 180 }, { lat: -90, lng: -180 }];
    for (const { lat, lng } of edges) {
      const { data, errors } = await h.query(
        `query($lat: Float!, $lng: Float!) { sitesNear(lat: $lat, lng: $lng, radiusKm: 1000, first: 100) { site { code } } }`,
        { lat, lng },
      );
      expect(errors).toBeUndefined();
      expect(data.sitesNear).toHaveLength(expectedSitesNear(h.mock.catalog, { lat, lng, radiusKm: 1000, first: 100 }).length);
    }
    const [product, city] = [h.mock.catalog.products[0]!, h.mock.catalog.cities[0]!];
    const { data, errors } = await h.query(`{
      searchProducts(first: 100) { goodsCode }
      product(goodsCode: "${product.goodsCode}") {
        availability(near: { lat: 0, lng: 0 }, radiusKm: 1000, first: 1000, cityCode: "${'y'.repeat(128)}") { stock } }
      city(code: "${city.code}") { sites(pageSize: 100) { total } }
      sites(cityCode: "${'y'.repeat(128)}", pageSize: 100) { total } }`);
    expect(errors).toBeUndefined();
    expect(data.searchProducts).toHaveLength(Math.min(100, h.mock.catalog.products.length));
    expect(data.product.availability).toEqual([]);
    expect(data.city.sites.total).toBe(h.mock.catalog.sites.filter((site) => site.cityCode === city.code).length);
    expect(data.sites.total).toBe(0);
  });
});

describe('argument validation under MAX_PAGE_SIZE=20', () => {
  let h: Harness;
  beforeAll(async () => { h = await startGateway({ env: { MAX_PAGE_SIZE: '20' } }); });
  afterAll(() => h.close());

  it('refuses first and pageSize above the gateway’s maximum page size, and accepts it', async () => {
    const city = h.mock.catalog.cities[0]!;
    await expectAllRefused(h, [
      `{ sitesNear(lat: 31, lng: 121, first: 21) { distanceKm } }`,
      `{ searchProducts(first: 21) { goodsCode } }`,
      `{ city(code: "${city.code}") { sites(pageSize: 21) { total } } }`,
    ]);
    const { data, errors } = await h.query(`{ searchProducts(first: 20) { goodsCode } }`);
    expect(errors).toBeUndefined();
    expect(data.searchProducts.map((p: { goodsCode: string }) => p.goodsCode))
      .toEqual(h.mock.catalog.products.slice(0, 20).map((p) => p.goodsCode));
  });
});
