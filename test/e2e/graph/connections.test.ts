/**
 * The Relay connections (docs: Cursor pagination): paging a city's sites both ways gives the
 * page fields' data exactly; a window over two upstream pages costs two calls cold and none
 * warm; cursors are checked (forged, foreign, garbage: `BAD_USER_INPUT`, with no upstream call)
 * and survive a restart; the budget counts connections like pages, the item limit each edge as
 * `EDGE_WEIGHT` items.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { callsByPath, startGateway, type Harness } from '../../helpers/gateway.js';
import { createMockUpstream } from '../../../src/mock-upstream/index.js';
import { EDGE_WEIGHT } from '../../../src/graph/items.js';

const SITES = '/api/site/list';
const FORWARD = `query($code: String!, $first: Int, $after: String) {
  city(code: $code) { sitesConnection(first: $first, after: $after) {
    totalCount edges { cursor node { code name } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } } }`;
const BACKWARD = `query($code: String!, $last: Int, $before: String) {
  city(code: $code) { sitesConnection(last: $last, before: $before) {
    totalCount edges { cursor node { code name } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } } }`;
const PAGES = `query($code: String!, $page: Int!) { city(code: $code) { sites(page: $page, pageSize: 10) { total hasNextPage items { code name } } } }`;
const WINDOW = `query($first: Int, $after: String) {
  sitesConnection(first: $first, after: $after) { totalCount edges { cursor node { code } } pageInfo { hasNextPage endCursor } } }`;

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** The city with the most sites (more than one page of them). */
function busiestCity(harness: Harness): string {
  const counts = new Map<string, number>();
  for (const site of harness.mock.catalog.sites) counts.set(site.cityCode, (counts.get(site.cityCode) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1])[0]![0];
}

/** Every site of a city as the page field lists it. */
async function pagedSites(harness: Harness, code: string): Promise<unknown[]> {
  const items: unknown[] = [];
  for (let page = 1; ; page += 1) {
    const { data } = await harness.query(PAGES, { code, page });
    items.push(...data.city.sites.items);
    if (!data.city.sites.hasNextPage) return items;
  }
}

describe('Relay cursor connections', () => {
  it('page forward and backward through a city\'s sites to the end, matching the page field exactly', async () => {
    h = await startGateway();
    const code = busiestCity(h);
    const expected = await pagedSites(h, code);
    expect(expected.length).toBeGreaterThan(10);

    const forward: unknown[] = [];
    let after: string | null = null;
    for (let guard = 0; guard < 100; guard += 1) {
      const { data, errors } = await h.query(FORWARD, { code, first: 4, after });
      expect(errors).toBeUndefined();
      const connection = data.city.sitesConnection;
      expect(connection.totalCount).toBe(expected.length);
      expect(connection.pageInfo.hasPreviousPage).toBe(after !== null);
      forward.push(...connection.edges.map((edge: { node: unknown }) => edge.node));
      if (!connection.pageInfo.hasNextPage) break;
      after = connection.pageInfo.endCursor;
    }
    expect(forward).toEqual(expected);

    const backward: unknown[] = [];
    let before: string | null = null;
    for (let guard = 0; guard < 100; guard += 1) {
      const { data } = await h.query(BACKWARD, { code, last: 3, before });
      const connection = data.city.sitesConnection;
      backward.unshift(...connection.edges.map((edge: { node: unknown }) => edge.node));
      if (!connection.pageInfo.hasPreviousPage) break;
      before = connection.pageInfo.startCursor;
    }
    expect(backward).toEqual(expected);
  });

  it('gives the sites the page field gives, edge by edge, without filters too', async () => {
    h = await startGateway();
    const page = await h.query('{ sites(page: 2, pageSize: 10) { items { code } } }');
    const first = await h.query(WINDOW, { first: 10 });
    const second = await h.query(WINDOW, { first: 10, after: first.data.sitesConnection.pageInfo.endCursor });
    expect(second.data.sitesConnection.edges.map((edge: { node: unknown }) => edge.node)).toEqual(page.data.sites.items);
    expect(second.data.sitesConnection.totalCount).toBe(h.mock.catalog.sites.length);
  });

  it('reads a window that straddles two upstream pages with two calls cold and none warm', async () => {
    h = await startGateway();
    // A cursor at offset 4: its window of 10 is items 5 to 14, half of page 1 and half of page 2 (pages of 10).
    const head = await h.query(WINDOW, { first: 5 });
    const after = head.data.sitesConnection.edges[4].cursor;
    h.mock.resetCounters();

    const cold = await h.query(WINDOW, { first: 10, after });
    expect(cold.errors).toBeUndefined();
    expect(cold.data.sitesConnection.edges.map((edge: { node: { code: string } }) => edge.node.code))
      .toEqual(h.mock.catalog.sites.slice(5, 15).map((site) => site.code));
    expect(callsByPath(h.mock)).toEqual({ [SITES]: 2 });

    h.mock.resetCounters();
    const warm = await h.query(WINDOW, { first: 10, after });
    expect(warm.data).toEqual(cold.data);
    expect(callsByPath(h.mock)).toEqual({});
  });

  it('pages on page boundaries with one upstream call a page, shared with the page field of that size', async () => {
    h = await startGateway();
    await h.query('{ sites(page: 1, pageSize: 10) { items { code } } }');
    h.mock.resetCounters();
    const first = await h.query(WINDOW, { first: 10 });
    expect(callsByPath(h.mock)).toEqual({});
    await h.query(WINDOW, { first: 10, after: first.data.sitesConnection.pageInfo.endCursor });
    expect(callsByPath(h.mock)).toEqual({ [SITES]: 1 });
  });

  it('refuses a garbage, a forged and a foreign cursor with BAD_USER_INPUT, before any upstream call', async () => {
    h = await startGateway();
    const code = busiestCity(h);
    const own = (await h.query(FORWARD, { code, first: 2 })).data.city.sitesConnection.pageInfo.endCursor as string;
    const decoded = Buffer.from(own, 'base64url').toString();
    const [version, , tag, mac] = decoded.split('.');
    const forged = Buffer.from([version, '7', tag, mac].join('.')).toString('base64url');
    const other = (await h.query(WINDOW, { first: 2 })).data.sitesConnection.pageInfo.endCursor as string;
    const otherCity = h.mock.catalog.sites.find((site) => site.cityCode !== code)!.cityCode;
    h.mock.resetCounters();

    for (const [query, variables] of [
      [FORWARD, { code, first: 2, after: 'not-a-cursor' }],
      [FORWARD, { code, first: 2, after: forged }],
      [FORWARD, { code, first: 2, after: other }], // another field's
      [FORWARD, { code: otherCity, first: 2, after: own }], // another city's list
      [WINDOW, { first: 2, after: own }],
      ['query($after: String) { sitesConnection(first: 2, after: $after, enabledOnly: true) { totalCount } }', { after: other }], // other filters
    ] as const) {
      const answer = await h.query(query, variables);
      expect(answer.errors?.map((error) => error.extensions?.code), JSON.stringify(variables)).toEqual(['BAD_USER_INPUT']);
    }
    expect(callsByPath(h.mock)).toEqual({});
  });

  it('refuses first with last, and counts out of range, with BAD_USER_INPUT', async () => {
    h = await startGateway();
    for (const args of ['first: 1, last: 1', 'first: -1', 'last: -1', 'first: 101', 'last: 101']) {
      const answer = await h.query(`{ productsConnection(${args}) { totalCount } }`);
      expect(answer.errors?.map((error) => error.extensions?.code), args).toEqual(['BAD_USER_INPUT']);
    }
    const product = h.mock.catalog.products[0]!.goodsCode;
    const nested = await h.query(`{ product(goodsCode: "${product}") { availabilityConnection(first: 1001) { totalCount } } }`);
    expect(nested.errors?.map((error) => error.extensions?.code)).toEqual(['BAD_USER_INPUT']);
  });

  it('takes each field\'s page default with neither first nor last', async () => {
    h = await startGateway();
    const { data } = await h.query('{ productsConnection { edges { cursor } } searchProductsConnection { edges { cursor } } }');
    expect(data.productsConnection.edges).toHaveLength(10);
    expect(data.searchProductsConnection.edges).toHaveLength(Math.min(20, h.mock.catalog.products.length));
  });

  it('keeps a cursor good across a restart of the gateway with the same configuration', async () => {
    const mock = await createMockUpstream();
    try {
      h = await startGateway({ sharedMock: mock });
      const first = await h.query(WINDOW, { first: 3 });
      const cursor = first.data.sitesConnection.pageInfo.endCursor;
      const expected = await h.query(WINDOW, { first: 3, after: cursor });
      await h.close();

      h = await startGateway({ sharedMock: mock });
      const again = await h.query(WINDOW, { first: 3, after: cursor });
      expect(again.errors).toBeUndefined();
      expect(again.data).toEqual(expected.data);
      expect(again.data.sitesConnection.edges.map((edge: { node: { code: string } }) => edge.node.code))
        .toEqual(mock.catalog.sites.slice(3, 6).map((site) => site.code));
    } finally {
      await h?.close();
      h = undefined;
      await mock.close();
    }
  });

  it('is priced by the budget like the pages its window reads: a straddling window is two calls', async () => {
    h = await startGateway({ env: { MAX_UPSTREAM_CALLS_PER_OPERATION: '1' } });
    const head = await h.query(WINDOW, { first: 5 });
    const after = head.data.sitesConnection.edges[4].cursor;
    h.mock.resetCounters();
    const straddling = await h.query(WINDOW, { first: 10, after });
    expect(straddling.errors?.map((error) => [error.extensions?.code, error.extensions?.estimate])).toEqual([['UPSTREAM_BUDGET_EXCEEDED', 2]]);
    expect(callsByPath(h.mock)).toEqual({});
    // Once page 2 of 10 is cached (page 1 is not: the head was read at 5), the same window is one call.
    await h.query('{ sites(page: 2, pageSize: 10) { total } }');
    const priced = await h.query(WINDOW, { first: 10, after });
    expect(priced.errors).toBeUndefined();
  });

  it('counts each of a connection\'s edges as EDGE_WEIGHT of a page\'s items for the item limit', async () => {
    h = await startGateway({ env: { MAX_ITEMS_PER_OPERATION: String(30 * EDGE_WEIGHT) } });
    const under = await h.query('{ productsConnection(first: 30) { edges { node { goodsCode } } } }');
    expect(under.errors).toBeUndefined();
    const over = await h.query('{ productsConnection(last: 31) { edges { node { goodsCode } } } }');
    expect(over.errors?.map((error) => [error.extensions?.code, error.extensions?.items])).toEqual([['ITEM_LIMIT_EXCEEDED', 31 * EDGE_WEIGHT]]);
    // With neither count, the field's default: 20 products, each counted with its one edge: 20 × (w + w).
    const nested = await h.query('{ searchProductsConnection { edges { node { availabilityConnection(first: 1) { edges { cursor } } } } } }');
    expect(nested.errors?.map((error) => [error.extensions?.code, error.extensions?.items])).toEqual([['ITEM_LIMIT_EXCEEDED', 20 * 2 * EDGE_WEIGHT]]);
  });

  it('pages backward from the end of an upstream list with last alone', async () => {
    h = await startGateway();
    const total = h.mock.catalog.products.length;
    const { data, errors } = await h.query('{ productsConnection(last: 7) { totalCount edges { node { goodsCode } } pageInfo { hasNextPage hasPreviousPage } } }');
    expect(errors).toBeUndefined();
    expect(data.productsConnection.totalCount).toBe(total);
    expect(data.productsConnection.edges.map((edge: { node: unknown }) => edge.node))
      .toEqual(h.mock.catalog.products.slice(total - 7).map((product) => ({ goodsCode: product.goodsCode })));
    expect(data.productsConnection.pageInfo).toEqual({ hasNextPage: false, hasPreviousPage: true });
  });

  it('gives sitesNear, searchProducts and availability in pages, the same items as their list fields', async () => {
    h = await startGateway();
    const site = h.mock.catalog.sites.find((s) => Number.isFinite(Number(s.lat)) && Number(s.lat) !== 0)!;
    const product = h.mock.catalog.products[0]!.goodsCode;
    const near = `lat: ${Number(site.lat)}, lng: ${Number(site.lng)}, radiusKm: 50`;
    const lists = await h.query(`{ sitesNear(${near}, first: 100) { site { code } distanceKm }
      searchProducts(first: 100) { goodsCode }
      product(goodsCode: "${product}") { availability(first: 1000) { site { code } stock } } }`);
    const walk = async (field: string, shape: (edge: any) => unknown, count = 3) => {
      const seen: unknown[] = [];
      let after: string | null = null;
      for (let guard = 0; guard < 500; guard += 1) {
        const { data, errors } = await h!.query(`query($after: String) { ${field.replace('ARGS', `first: ${count}, after: $after`)} }`, { after });
        expect(errors).toBeUndefined();
        const connection = Object.values(data).flatMap((value: any) => (value.edges ? [value] : Object.values(value)))[0] as any;
        seen.push(...connection.edges.map(shape));
        if (!connection.pageInfo.hasNextPage) return seen;
        after = connection.pageInfo.endCursor;
      }
      return seen;
    };
    const near2 = await walk(`sitesNearConnection(${near}, ARGS) { edges { distanceKm node { code } } pageInfo { hasNextPage endCursor } }`,
      (edge) => ({ site: edge.node, distanceKm: edge.distanceKm }));
    expect(near2).toEqual(lists.data.sitesNear);
    const search = await walk('searchProductsConnection(ARGS) { edges { node { goodsCode } } pageInfo { hasNextPage endCursor } }', (edge) => edge.node, 7);
    expect(search).toEqual(lists.data.searchProducts);
    const lanes = await walk(`product(goodsCode: "${product}") { availabilityConnection(ARGS) { edges { node { site { code } stock } } pageInfo { hasNextPage endCursor } } }`,
      (edge) => edge.node, 2);
    expect(lanes).toEqual(lists.data.product.availability);
    expect(lanes.length).toBeGreaterThan(0);
  });

  it('passes availability\'s enabledOnly through: the lanes of sites not in service only when asked, under their own cursors', async () => {
    h = await startGateway();
    const disabled = new Set(h.mock.catalog.sites.filter((site) => site.state === 0).map((site) => site.code));
    const lanes = h.mock.catalog.sites.filter((site) => disabled.has(site.code)).flatMap((site) => site.points.flatMap((p) => p.cargolanes));
    const goodsCode = lanes.find((lane) => lane.goodsCode && (lane.stock ?? 0) > 0)!.goodsCode!;
    const query = `query($enabledOnly: Boolean, $after: String) { product(goodsCode: "${goodsCode}") {
      availability(enabledOnly: $enabledOnly, first: 1000) { site { code } }
      availabilityConnection(enabledOnly: $enabledOnly, first: 1000, after: $after) { totalCount edges { cursor node { site { code } } } } } }`;
    const shown = await h.query(query, { enabledOnly: true });
    const all = await h.query(query, { enabledOnly: false });
    const codes = (answer: any) => answer.data.product.availabilityConnection.edges.map((edge: any) => edge.node.site.code);
    expect(codes(shown).some((code: string) => disabled.has(code))).toBe(false);
    expect(codes(all).some((code: string) => disabled.has(code))).toBe(true);
    expect(codes(all)).toEqual(all.data.product.availability.map((lane: any) => lane.site.code));
    const foreign = await h.query(query, { enabledOnly: true, after: all.data.product.availabilityConnection.edges[0].cursor });
    expect(foreign.errors?.map((error) => error.extensions?.code)).toEqual(['BAD_USER_INPUT']);
  });
});

