/**
 * A connection's edge is priced above a list field's item (src/graph/items.ts, `EDGE_WEIGHT`):
 * an edge is an object more, a cursor and its bytes of answer, and a page of them cost several
 * times the CPU of the same items through `searchProducts` / `availability`
 * (bench/connection-cost.ts). So the largest connection query the item limit admits is the
 * list query's size divided by the weight, and the same items through connections are refused.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { EDGE_WEIGHT } from '../../../src/graph/items.js';
import { callsByPath, startGateway, type Harness } from '../../helpers/gateway.js';

const MAX_ITEMS = 50_000;
const LANES = 500;
const connection = (products: number) => `{ searchProductsConnection(first: ${products}) { edges { cursor node { goodsCode
  availabilityConnection(first: ${LANES}) { edges { cursor node { stock } } } } } } }`;
const list = (products: number) => `{ searchProducts(first: ${products}) { goodsCode availability(first: ${LANES}) { stock } } }`;

describe('the price of a connection edge', () => {
  let h: Harness;
  afterEach(() => h.close());

  it('refuses 99 products with 500 lanes each through connections, and admits the same items through the list fields', async () => {
    // Depth 7: the deepest a connection's lanes go (docs: Cursor pagination, Depth).
    h = await startGateway({ env: { MAX_ITEMS_PER_OPERATION: String(MAX_ITEMS), MAX_QUERY_DEPTH: '7' } });
    const refused = await h.query(connection(99));
    expect(refused.data ?? null).toBeNull();
    expect(refused.errors?.map((error) => [error.extensions?.code, error.extensions?.items]))
      .toEqual([['ITEM_LIMIT_EXCEEDED', 99 * (1 + LANES) * EDGE_WEIGHT]]);
    expect(refused.errors?.[0]?.message).toContain(`a connection's edge counts as ${EDGE_WEIGHT}`);
    expect(callsByPath(h.mock)).toEqual({});

    const admitted = await h.query(list(99));
    expect(admitted.errors).toBeUndefined();
    expect(admitted.data.searchProducts.length).toBeGreaterThan(0);
  });

  it('admits the most products the weighted count allows through connections, and refuses one more', async () => {
    h = await startGateway({ env: { MAX_ITEMS_PER_OPERATION: String(MAX_ITEMS), MAX_QUERY_DEPTH: '7' } });
    const most = Math.floor(MAX_ITEMS / ((1 + LANES) * EDGE_WEIGHT));
    const admitted = await h.query(connection(most));
    expect(admitted.errors).toBeUndefined();
    expect(admitted.data.searchProductsConnection.edges.length).toBe(Math.min(most, h.mock.catalog.products.length));
    const over = await h.query(connection(most + 1));
    expect(over.errors?.map((error) => [error.extensions?.code, error.extensions?.items]))
      .toEqual([['ITEM_LIMIT_EXCEEDED', (most + 1) * (1 + LANES) * EDGE_WEIGHT]]);
  });
});
