import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectDataAge, expectedStockSummary, isOpenAt, timeOfDayAt } from '../../helpers/beyond-expected.js';
import { startGateway, type Harness } from '../../helpers/gateway.js';

// Private: one query of each index field, with what `data` becomes when that field fails.
function indexQueries(h: Harness): { query: string; data: unknown }[] {
  const site = h.mock.catalog.sites[0]!;
  const product = h.mock.catalog.products[0]!;
  const city = h.mock.catalog.cities[0]!;
  return [
    { query: `{ sitesNear(lat: ${site.lat}, lng: ${site.lng}) { distanceKm } }`, data: null },
    { query: `{ searchProducts(text: "${product.productName.slice(0, 3)}") { goodsCode } }`, data: null },
    { query: `{ product(goodsCode: "${product.goodsCode}") { goodsCode availability { stock } } }`, data: { product: null } },
    { query: `{ product(goodsCode: "${product.goodsCode}") { goodsCode totalStock } }`, data: { product: null } },
    { query: `{ city(code: "${city.code}") { code sites { total } } }`, data: { city: null } },
    { query: `{ sites(cityCode: "${city.code}") { total } }`, data: null },
    { query: `{ sites(enabledOnly: true) { total } }`, data: null },
  ];
}

describe('with INDEX_ENABLED=false', () => {
  let h: Harness;
  beforeAll(async () => { h = await startGateway({ env: { INDEX_ENABLED: 'false' } }); });
  afterAll(() => h.close());

  it('answers every index field with FEATURE_DISABLED and a null field or parent', async () => {
    for (const { query, data } of indexQueries(h)) {
      const response = await h.query(query);
      expect(response.errors?.map((error) => error.extensions?.code), query).toEqual(['FEATURE_DISABLED']);
      expect(response.data ?? null, query).toEqual(data);
    }
  });

  it('still answers isOpen and stockSummary from the site’s own record', async () => {
    const site = h.mock.catalog.sites[0]!;
    const { data, errors } = await h.query(
      `query($code: String!) { site(code: $code) { isOpen(at: "23:30") stockSummary { lanes emptyLanes totalStock } } }`,
      { code: site.code },
    );
    expect(errors).toBeUndefined();
    expect(data.site).toEqual({ isOpen: isOpenAt(site, timeOfDayAt('23:30')), stockSummary: expectedStockSummary(site) });
  });

  it('still answers Query.sites without filters or with enabledOnly false alone', async () => {
    const expected = h.mock.catalog.sites.slice(0, 5).map((site) => ({ code: site.code }));
    for (const args of ['pageSize: 5', 'pageSize: 5, enabledOnly: false']) {
      const { data, errors } = await h.query(`{ sites(${args}) { total items { code } } }`);
      expect(errors, args).toBeUndefined();
      expect(data.sites, args).toEqual({ total: h.mock.catalog.sites.length, items: expected });
    }
  });
});

describe('extensions.dataAge', () => {
  let h: Harness;
  beforeAll(async () => { h = await startGateway(); });
  afterAll(() => h.close());

  it('is a whole number of seconds in every answer that used the index', async () => {
    for (const { query } of indexQueries(h)) {
      const response = await h.query(query);
      expect(response.errors, query).toBeUndefined();
      expectDataAge(response.extensions);
    }
  });

  it('is absent from answers that did not use the index', async () => {
    const site = h.mock.catalog.sites[0]!;
    const product = h.mock.catalog.products[0]!;
    for (const query of [
      `{ site(code: "${site.code}") { name } }`,
      `{ site(code: "${site.code}") { name isOpen(at: "12:00") } }`,
      `{ sites(pageSize: 3) { items { code } } }`,
      `{ product(goodsCode: "${product.goodsCode}") { productName } }`,
      `{ cities { items { code } } }`,
    ]) {
      const response = await h.query(query);
      expect(response.errors, query).toBeUndefined();
      expect(response.extensions?.dataAge, query).toBeUndefined();
    }
  });

  it('is the age of the oldest index data an answer used', async () => {
    const g = await startGateway();
    try {
      const site = g.mock.catalog.sites[0]!;
      const products = `searchProducts(first: 1) { goodsCode }`;
      const sites = `sitesNear(lat: ${site.lat}, lng: ${site.lng}) { distanceKm }`;
      expectDataAge((await g.query(`{ ${products} }`)).extensions);
      // The products part is now 20 s older than the sites part, built next.
      g.clock.advance(20_000);
      expectDataAge((await g.query(`{ ${sites} }`)).extensions);
      // Ages of: products alone, sites alone, both in one answer.
      const ages: number[] = [];
      for (const query of [`{ ${products} }`, `{ ${sites} }`, `{ ${products} ${sites} }`]) {
        const { extensions } = await g.query(query);
        expectDataAge(extensions);
        ages.push(extensions!.dataAge as number);
      }
      expect(ages[0]).toBeGreaterThanOrEqual(20);
      expect(ages[1]).toBeLessThan(ages[0]!);
      expect(ages[2]).toBe(Math.max(ages[0]!, ages[1]!));
    } finally {
      await g.close();
    }
  });

  it('grows with the age of the index data', async () => {
    const query = `{ searchProducts(first: 1) { goodsCode } }`;
    const first = await h.query(query);
    expectDataAge(first.extensions);
    // Clock-agnostic: 1.1 s pass for real and 5 s on the gateway's injected clock, both well
    // within the index's refresh periods (30 s and 600 s).
    h.clock.advance(5_000);
    await sleep(1_100);
    const later = await h.query(query);
    expectDataAge(later.extensions);
    expect(later.extensions!.dataAge as number).toBeGreaterThanOrEqual((first.extensions!.dataAge as number) + 1);
    expect(later.extensions!.dataAge as number).toBeLessThanOrEqual((first.extensions!.dataAge as number) + 7);
  });
});
