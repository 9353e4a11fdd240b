import { afterEach, describe, expect, it } from 'vitest';
import type { MockLane, MockPoint, MockSite } from '../../../src/mock-upstream/index.js';
import { startGateway, type Harness } from '../../helpers/gateway.js';

const MAX_INT = 2_147_483_647;

interface Placed {
  site: MockSite;
  point: MockPoint;
  lane: MockLane & { goodsCode: string };
}

/** Every lane holding a product, with its site and point, in the mock's order. */
function stockedLanes(h: Harness): Placed[] {
  return h.mock.catalog.sites.flatMap((site) => site.points.flatMap((point) => point.cargolanes
    .filter((lane): lane is MockLane & { goodsCode: string } => lane.goodsCode !== null && lane.goodsCode !== '')
    .map((lane) => ({ site, point, lane }))));
}

/** The stock of `goodsCode` as the rule counts it: a value out of 0..MAX_INT counts as none. */
function countedStock(h: Harness, goodsCode: string): number {
  return stockedLanes(h).filter(({ lane }) => lane.goodsCode === goodsCode)
    .reduce((sum, { lane }) => sum + (lane.stock >= 0 && lane.stock <= MAX_INT ? lane.stock : 0), 0);
}

const SITE = `query($code: String!) { site(code: $code) {
  code points { code cargoLanes { goodsCode stock } } stockSummary { lanes emptyLanes totalStock } } }`;
const PRODUCT = `query($g: String!) { product(goodsCode: $g) {
  goodsCode totalStock availability(inStockOnly: false, first: 1000) { stock site { code } point { code } lane { stock } } } }`;

describe.each([
  ['beyond a 32-bit Int', 3e9],
  ['negative', -5],
])('an upstream stock %s', (_name, badStock) => {
  let h: Harness;
  afterEach(() => h.close());

  it('is null with UPSTREAM_DATA_INVALID on that lane alone, and counts as none in every sum and filter', async () => {
    h = await startGateway();
    const target = stockedLanes(h).find(({ point }) => point.cargolanes.length > 1)!;
    target.lane.stock = badStock; // the live catalog: the next upstream answer carries it
    const { site, point, lane } = target;
    const laneIndex = point.cargolanes.indexOf(lane);

    const siteAnswer = await h.query(SITE, { code: site.code });
    const laneErrors = siteAnswer.errors ?? [];
    expect(laneErrors).toHaveLength(1);
    expect(laneErrors[0]!.extensions?.code).toBe('UPSTREAM_DATA_INVALID');
    const pointIndex = site.points.indexOf(point);
    expect(laneErrors[0]!.path).toEqual(['site', 'points', pointIndex, 'cargoLanes', laneIndex, 'stock']);
    const served = siteAnswer.data.site.points[pointIndex].cargoLanes;
    expect(served[laneIndex]).toEqual({ goodsCode: lane.goodsCode, stock: null });
    expect(served.filter((_l: unknown, i: number) => i !== laneIndex).map((l: { stock: number }) => l.stock))
      .toEqual(point.cargolanes.filter((_l, i) => i !== laneIndex).map((l) => l.stock));
    const lanes = site.points.flatMap((p) => p.cargolanes);
    const valid = (l: MockLane) => (l.goodsCode && l.stock >= 0 && l.stock <= MAX_INT ? l.stock : 0);
    expect(siteAnswer.data.site.stockSummary).toEqual({
      lanes: lanes.length,
      emptyLanes: lanes.filter((l) => valid(l) <= 0).length,
      totalStock: lanes.reduce((sum, l) => sum + valid(l), 0),
    });

    const productAnswer = await h.query(PRODUCT, { g: lane.goodsCode });
    const product = productAnswer.data.product;
    expect(product.goodsCode).toBe(lane.goodsCode);
    expect(product.totalStock).toBe(countedStock(h, lane.goodsCode));
    const entry = product.availability.find((a: { site: { code: string }; point: { code: string }; lane: { stock: number | null } }) =>
      a.site.code === site.code && a.point.code === point.code && a.lane.stock === null);
    expect(entry).toMatchObject({ stock: 0, lane: { stock: null } });
    expect(productAnswer.errors?.map((e) => e.extensions?.code)).toEqual(['UPSTREAM_DATA_INVALID']);

    const inStock = await h.query(`query($g: String!) { product(goodsCode: $g) { availability(first: 1000) { stock } } }`, { g: lane.goodsCode });
    expect(inStock.errors).toBeUndefined();
    expect(inStock.data.product.availability.every((a: { stock: number }) => a.stock > 0 && a.stock <= MAX_INT)).toBe(true);
  });
});

describe('sums of stock', () => {
  let h: Harness;
  afterEach(() => h.close());

  it('stop at the largest Int rather than fail the product', async () => {
    h = await startGateway();
    const [first] = stockedLanes(h);
    const sameProduct = stockedLanes(h).filter(({ lane }) => lane.goodsCode === first!.lane.goodsCode);
    expect(sameProduct.length).toBeGreaterThan(1);
    for (const { lane } of sameProduct) lane.stock = MAX_INT;
    const { data, errors } = await h.query(`query($g: String!) { product(goodsCode: $g) { totalStock } }`, { g: first!.lane.goodsCode });
    expect(errors).toBeUndefined();
    expect(data.product.totalStock).toBe(MAX_INT);
  });
});

describe('an upstream page total beyond a 32-bit Int', () => {
  let h: Harness;
  afterEach(() => h.close());

  it('is taken as unknown, so the total counts what is known and is never cached as an error', async () => {
    h = await startGateway();
    const items = h.mock.catalog.products.slice(0, 3).map((p) => ({ goodsCode: p.goodsCode, productName: p.productName }));
    h.mock.fault('/api/products/list', { raw: { body: JSON.stringify({ code: 0, result: { items, total: 2 ** 53 } }) } }, { times: 1 });
    const answer = await h.query('{ products(page: 1, pageSize: 3) { total items { goodsCode } } }');
    expect(answer.errors).toBeUndefined();
    expect(answer.data.products).toEqual({ total: 3, items: items.map(({ goodsCode }) => ({ goodsCode })) });
  });
});
