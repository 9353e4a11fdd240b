import { afterEach, describe, expect, it } from 'vitest';
import { callsByPath, startGateway, type Harness } from '../../helpers/gateway.js';

const PRODUCTS = '/api/products/list';
const PAGE = 'query($page: Int!, $size: Int!) { products(page: $page, pageSize: $size) { total items { goodsCode } } }';

describe('the page-size cap learnt from short upstream pages', () => {
  let h: Harness;
  afterEach(() => h.close());

  /** Goods codes of products [from, to) in the mock's order. */
  const codes = (from: number, to: number) => h.mock.catalog.products.slice(from, to).map((p) => ({ goodsCode: p.goodsCode }));

  it('is revised by one probe after one truncated page, so a later page costs one call, not one per item', async () => {
    h = await startGateway();
    const [first] = h.mock.catalog.products;
    const truncated = { code: 0, msg: 'ok', result: { items: [{ goodsCode: first!.goodsCode, productName: first!.productName }], total: 80 } };
    h.mock.fault(PRODUCTS, { raw: { body: JSON.stringify(truncated) } }, { times: 1 });

    const short = await h.query(PAGE, { page: 1, size: 20 });
    expect(short.data.products).toEqual({ total: 80, items: codes(0, 1) }); // passed on as it came
    // The page itself, and page 1 at two items: answered in full, it disproves a cap of one.
    expect(callsByPath(h.mock)).toEqual({ [PRODUCTS]: 2 });

    h.mock.resetCounters();
    const second = await h.query(PAGE, { page: 2, size: 20 });
    expect(second.data.products).toEqual({ total: 80, items: codes(20, 40) });
    expect(callsByPath(h.mock)).toEqual({ [PRODUCTS]: 1 });
  });

  it('is confirmed by that probe once when real, and then plans without it', async () => {
    h = await startGateway({ mock: { catalog: { products: 200 }, behaviour: { maxPageSize: 15 } } });
    const first = await h.query(PAGE, { page: 1, size: 50 });
    expect(first.data.products).toEqual({ total: 200, items: codes(0, 50) });
    // Page 1 at 50 (15 items), the probe at 16 (15 again: confirmed), pages 2–4 at 15.
    expect(callsByPath(h.mock)).toEqual({ [PRODUCTS]: 5 });

    h.mock.resetCounters();
    const second = await h.query(PAGE, { page: 2, size: 50 });
    expect(second.data.products).toEqual({ total: 200, items: codes(50, 100) });
    // Pages 4–7 at 15, page 4 already cached: no probe.
    expect(callsByPath(h.mock)).toEqual({ [PRODUCTS]: 3 });
  });

  it('bounds a walk by upstream calls when every page says one item of a billion (fuzzer seed 1362600671)', async () => {
    h = await startGateway();
    const [first] = h.mock.catalog.products;
    const oneOfABillion = { code: 0, result: { items: [{ goodsCode: first!.goodsCode, productName: first!.productName }], total: 1e9 } };
    h.mock.fault(PRODUCTS, { raw: { body: JSON.stringify(oneOfABillion) } });

    const answer = await h.query('{ searchProducts(first: 10) { goodsCode } }');
    expect(answer.errors).toBeUndefined();
    expect(answer.data.searchProducts.length).toBeGreaterThan(0);
    // A cap of one makes each 100-item page 100 calls: the walk stops at 1,000 calls (plus the
    // probe), where a billion items would have been 100,000.
    expect(callsByPath(h.mock)[PRODUCTS]).toBeLessThanOrEqual(1001);
  });
});
