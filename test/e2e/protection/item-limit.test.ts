import { afterEach, describe, expect, it } from 'vitest';
import { EXAMPLE_QUERIES } from '../../../src/pages/explorer/example-query.js';
import { documentation } from '../../helpers/docs.js';
import { callsByPath, startGateway, type Harness } from '../../helpers/gateway.js';

/** The GraphQL examples of the documentation (README.md, then docs/), in order. */
function readmeExamples(): string[] {
  return [...documentation().matchAll(/^```graphql\n([\s\S]*?)^```/gm)].map((match) => match[1]!);
}

const SEARCH_WITH_LANES = (alias: number) =>
  `a${alias}: searchProducts(first: 100) { goodsCode availability(first: 1000, inStockOnly: false) { stock distanceKm } }`;

describe('the item limit', () => {
  let h: Harness;
  afterEach(() => h.close());

  it('refuses fifteen aliased searchProducts(first: 100) with availability(first: 1000) before it runs, with 0 upstream calls', async () => {
    h = await startGateway();
    const query = `{ ${Array.from({ length: 15 }, (_, i) => SEARCH_WITH_LANES(i)).join('\n')} }`;
    const { data, errors } = await h.query(query);
    expect(data ?? null).toBeNull();
    expect(errors?.map((error) => error.extensions?.code)).toEqual(['ITEM_LIMIT_EXCEEDED']);
    expect(errors?.[0]?.extensions?.items).toBe(15 * 100 * (1 + 1000));
    expect(errors?.[0]?.message).toContain('about 1501500 list entries');
    expect(callsByPath(h.mock)).toEqual({});
    expect(h.mock.calls('/oauth/token')).toBe(0);
  });

  it('multiplies by bounds given as variables, and by the schema’s defaults when they are absent', async () => {
    h = await startGateway({ env: { MAX_ITEMS_PER_OPERATION: '1020' } });
    const query = 'query($n: Int, $m: Int) { searchProducts(first: $n) { availability(first: $m) { stock } } }';
    // Defaults: 20 products, 50 lanes each: 20 + 20 × 50 = 1020.
    expect((await h.query(query)).errors).toBeUndefined();
    expect((await h.query(query, { n: 20, m: 51 })).errors?.[0]?.extensions?.code).toBe('ITEM_LIMIT_EXCEEDED');
    expect((await h.query(query, { n: 21 })).errors?.[0]?.extensions?.code).toBe('ITEM_LIMIT_EXCEEDED');
  });

  it('counts a page’s items by its pageSize, a list without a bound as 5, and fragments wherever they are spread', async () => {
    // 10 sites, each with 5 points counted, each with 5 lanes: 10 + 50 + 250 = 310, twice.
    h = await startGateway({ env: { MAX_ITEMS_PER_OPERATION: '620' } });
    const document = `query($size: Int) { a: sites(pageSize: 10) { ...Deep } b: sites(pageSize: $size) { ...Deep } }
      fragment Deep on SitePage { items { points { cargoLanes { stock } } } }`;
    expect((await h.query(document, { size: 10 })).errors).toBeUndefined();
    expect((await h.query(document, { size: 11 })).errors?.[0]?.extensions?.items).toBe(310 + 341);
  });

  it('answers every example of the documentation and every GraphiQL example under the default limits', async () => {
    h = await startGateway({ mock: { catalog: { sites: 250 } } });
    const site = h.mock.catalog.sites[0]!;
    for (const query of [...readmeExamples(), ...EXAMPLE_QUERIES]) {
      const { errors } = await h.query(query, { code: site.code });
      expect(errors, query).toBeUndefined();
    }
  });
});
