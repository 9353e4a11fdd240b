import { afterEach, describe, expect, it } from 'vitest';
import { createMockUpstream, type MockUpstream } from '../../src/mock-upstream/index.js';
import { callsByPath, startGateway, type Harness } from '../helpers/gateway.js';

const DEEP = `query Deep($n: Int!) {
  sites(pageSize: $n) { items { code city { name } points { code cargoLanes { stock guidePrice product { productName ipName guidePrice } } } } }
}`;

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

  it('loads each distinct product once for 20 sites with lanes and products, then nothing within the TTL', async () => {
    h = await startGateway();
    const cold = await h.query(DEEP, { n: 20 });
    expect(cold.errors).toBeUndefined();
    expect(callsByPath(h.mock)).toEqual({
      '/api/site/list-with-points': 1,
      '/api/product/detail': distinctGoods(h.mock, 20),
    });

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

  it('shares one product load between lanes, aliases and a product query in the same request', async () => {
    h = await startGateway();
    const site = h.mock.catalog.sites[0]!;
    const goodsCode = site.points[0]!.cargolanes.find((lane) => lane.goodsCode)!.goodsCode!;
    const { errors } = await h.query(
      `query($c: String!, $g: String!) {
        a: product(goodsCode: $g) { productName } b: product(goodsCode: $g) { ipName }
        site(code: $c) { points { cargoLanes { product { goodsCode } } } } }`,
      { c: site.code, g: goodsCode },
    );
    expect(errors).toBeUndefined();
    const counts = callsByPath(h.mock);
    expect(counts['/api/product/detail']).toBe(distinctGoods(h.mock, 1));
    expect(counts['/api/site/detail']).toBe(1);
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
