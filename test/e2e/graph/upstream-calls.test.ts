import { afterEach, describe, expect, it } from 'vitest';
import { createMockUpstream, type MockUpstream } from '../../../src/mock-upstream/index.js';
import { callsByPath, startGateway, type Harness } from '../../helpers/gateway.js';

const SITE_FIELDS = 'code city { name } points { code cargoLanes { stock guidePrice product { productName ipName guidePrice } } }';
const DEEP = `query Deep($n: Int!) { sites(pageSize: $n) { items { ${SITE_FIELDS} } } }`;
/** The same sites through the Relay connection, which plans its calls as the page field does. */
const DEEP_CONNECTION = `query DeepConnection($n: Int!) { sitesConnection(first: $n) { edges { node { ${SITE_FIELDS} } } } }`;

/** Distinct goods codes in the first `n` sites of the catalog. */
function distinctGoods(mock: MockUpstream, n: number): number {
  const codes = mock.catalog.sites
    .slice(0, n)
    .flatMap((site) => site.points.flatMap((point) => point.cargolanes.map((lane) => lane.goodsCode)));
  return new Set(codes.filter((code) => code !== undefined)).size;
}

describe('upstream calls: batching and caching', () => {
  let h: Harness;
  afterEach(() => h.close());

  it('answers a plain sites page with one call to the plain list', async () => {
    h = await startGateway();
    const { errors } = await h.query(`{ sites(pageSize: 20) { total items { code name lat lng images } } }`);
    expect(errors).toBeUndefined();
    expect(callsByPath(h.mock)).toEqual({ '/api/site/list': 1 });
  });

  it('answers sites with points, lanes and city with one call to list-with-points', async () => {
    h = await startGateway();
    const { errors } = await h.query(
      `{ sites(pageSize: 20) { items { code city { code name } points { code cargoLanes { goodsCode stock guidePrice } } } } }`,
    );
    expect(errors).toBeUndefined();
    expect(callsByPath(h.mock)).toEqual({ '/api/site/list-with-points': 1 });
  });

  it('loads the products of 20 sites in fewer calls than distinct goods codes, then nothing within the TTL', async () => {
    h = await startGateway();
    const cold = await h.query(DEEP, { n: 20 });
    expect(cold.errors).toBeUndefined();
    // 80 products in pages capped at 50: walking the list (2 calls) beats one detail per goods code.
    expect(distinctGoods(h.mock, 20)).toBeGreaterThan(2);
    expect(callsByPath(h.mock)).toEqual({ '/api/site/list-with-points': 1, '/api/products/list': 2 });

    h.mock.resetCounters();
    const warm = await h.query(DEEP, { n: 20 });
    expect(warm).toEqual(cold);
    expect(h.mock.calls()).toBe(0);
  });

  it('makes each distinct upstream call once for 25 concurrent identical cold queries', async () => {
    const mock = await createMockUpstream({ latencyMs: 20 });
    try {
      h = await startGateway({ sharedMock: mock });
      await h.query(DEEP, { n: 10 });
      const oneQuery = callsByPath(mock);
      await h.close();

      mock.resetCounters();
      h = await startGateway({ sharedMock: mock });
      const answers = await Promise.all(Array.from({ length: 25 }, () => h.query(DEEP, { n: 10 })));
      expect(answers.every((answer) => answer.errors === undefined)).toBe(true);
      expect(callsByPath(mock)).toEqual(oneQuery);
      expect(mock.calls('/oauth/token')).toBe(1);
    } finally {
      await mock.close();
    }
  });

  for (const [field, deep] of [['sites', DEEP], ['sitesConnection', DEEP_CONNECTION]] as const) {
    it(`asks for the product list alongside the sites page, so a deep page takes 2 waves of upstream calls (${field})`, async () => {
      // 1 s per call, so that calls sent together arrive together even on a busy machine.
      const latencyMs = 1000;
      // A connection's edges and node are two levels where a page's items is one (docs: Cursor pagination).
      const env = { MAX_QUERY_DEPTH: '7' };
      h = await startGateway({ env, mock: { latencyMs, catalog: { products: 300 }, behaviour: { maxPageSize: 100 } } });
      await fetch(`${h.url}/readyz`); // asks for the token, which the query then waits for, before any call
      h.mock.resetCounters();
      const { errors } = await h.query(deep, { n: 20 });
      expect(errors).toBeUndefined();
      // A wave: calls that start before any call of the wave could have answered (a later call
      // starts at least latencyMs after the first of the wave it waited for).
      const starts = h.mock.callLog().filter((c) => c.path !== '/oauth/token').map((c) => c.at).sort((a, b) => a - b);
      const waveStarts: number[] = [];
      for (const at of starts) if (waveStarts.length === 0 || at - waveStarts.at(-1)! >= 0.8 * latencyMs) waveStarts.push(at);
      const waves = waveStarts.length;
      expect(waves).toBe(2);
      expect(callsByPath(h.mock)).toEqual({ '/api/site/list-with-points': 1, '/api/products/list': 3 });
    });
  }

  it('asks for a few products one by one, sharing each load between aliases', async () => {
    h = await startGateway();
    const [g1, g2] = h.mock.catalog.products.map((product) => product.goodsCode);
    const { data, errors } = await h.query(
      `query($g1: String!, $g2: String!) {
        a: product(goodsCode: $g1) { productName } b: product(goodsCode: $g1) { ipName } c: product(goodsCode: $g2) { goodsCode } }`,
      { g1, g2 },
    );
    expect(errors).toBeUndefined();
    expect(data.c.goodsCode).toBe(g2);
    expect(callsByPath(h.mock)).toEqual({ '/api/product/detail': 2 });
  });

  it('falls back to product details when walking the product list fails', async () => {
    h = await startGateway({ env: { UPSTREAM_RETRIES: '0' } });
    h.mock.fault('/api/products/list', 'http503');
    const { data, errors } = await h.query(DEEP, { n: 2 });
    expect(errors).toBeUndefined();
    expect(data.sites.items[0].points[0].cargoLanes.some((lane: any) => lane.product !== null)).toBe(true);
    expect(callsByPath(h.mock)['/api/product/detail']).toBe(distinctGoods(h.mock, 2));
  });

  it('primes products from a product list page: the products listed need no detail call', async () => {
    h = await startGateway();
    const products = h.mock.catalog.products.slice(0, 5);
    await h.query(`{ products(pageSize: 5) { items { goodsCode } } }`);
    h.mock.resetCounters();
    const { data } = await h.query(
      `query($g: String!) { product(goodsCode: $g) { goodsCode guidePrice } }`,
      { g: products[3]!.goodsCode },
    );
    expect(data.product).toEqual({ goodsCode: products[3]!.goodsCode, guidePrice: products[3]!.guidePrice });
    expect(h.mock.calls()).toBe(0);
  });

  it('primes sites and their cities from list-with-points: a site and its city then cost no call', async () => {
    h = await startGateway();
    await h.query(`{ sites(pageSize: 10) { items { points { code } } } }`);
    h.mock.resetCounters();
    const site = h.mock.catalog.sites[4]!;
    const { data } = await h.query(`query($c: String!) { site(code: $c) { code city { code } points { code } } }`, {
      c: site.code,
    });
    expect(data.site.city.code).toBe(site.cityCode);
    expect(h.mock.calls()).toBe(0);
  });

  it('asks the city list only when a numeric city id is wanted, and only once within its TTL', async () => {
    h = await startGateway();
    await h.query(`{ sites(pageSize: 10) { items { city { cityId name } } } }`);
    await h.query(`{ sites(pageSize: 10) { items { city { cityId } } } }`);
    expect(callsByPath(h.mock)).toEqual({ '/api/site/list-with-points': 1, '/api/city/list': 1 });
  });
});
