import { afterEach, describe, expect, it } from 'vitest';
import { expectedSite } from '../../helpers/expected.js';
import { callsByPath, startGateway, type Harness } from '../../helpers/gateway.js';
import { until } from '../../helpers/http.js';

describe('resolving against the upstream’s rough edges', () => {
  let h: Harness;
  afterEach(() => h.close());

  it('knows the city of a site from its detail by walking list-with-points once', async () => {
    h = await startGateway({ mock: { catalog: { sites: 120 } } });
    const [a, b] = [h.mock.catalog.sites[5]!, h.mock.catalog.sites[110]!];
    const { data, errors } = await h.query(
      `query($a: String!, $b: String!) { a: site(code: $a) { city { code name } } b: site(code: $b) { city { code } } }`,
      { a: a.code, b: b.code },
    );
    expect(errors).toBeUndefined();
    const cityA = h.mock.catalog.cities.find((city) => city.code === a.cityCode)!;
    expect(data).toEqual({ a: { city: { code: cityA.code, name: cityA.name } }, b: { city: { code: b.cityCode } } });
    // Two details, and one walk of list-with-points (120 sites: pages of 100 capped to 50 by the mock).
    const counts = callsByPath(h.mock);
    expect(counts['/api/site/detail']).toBe(2);
    expect(counts['/api/site/list-with-points']).toBeLessThanOrEqual(4);
    h.mock.resetCounters();
    const c = h.mock.catalog.sites[60]!;
    const again = await h.query(`query($c: String!) { site(code: $c) { city { code } } }`, { c: c.code });
    expect(again.data.site.city.code).toBe(c.cityCode);
    // The walk primed every site too: this detail is already cached.
    expect(h.mock.calls()).toBe(0);
  });

  it('knows the city of a site reached through node(id), a plain-list source', async () => {
    h = await startGateway();
    const site = h.mock.catalog.sites[9]!;
    const { data } = await h.query(`{ sites(pageSize: 10) { items { id } } }`);
    const { data: node } = await h.query(`query($id: ID!) { node(id: $id) { ... on Site { code city { code } } } }`, {
      id: data.sites.items[9].id,
    });
    expect(node.node).toEqual({ code: site.code, city: { code: site.cityCode } });
  });

  it('assembles the requested page from capped upstream pages', async () => {
    h = await startGateway({ mock: { catalog: { sites: 250 }, behaviour: { maxPageSize: 50 } } });
    const sites = h.mock.catalog.sites;
    const first = await h.query(`{ sites(pageSize: 100) { total hasNextPage items { code name } } }`);
    expect(first.data.sites.total).toBe(250);
    expect(first.data.sites.items.map((s: { code: string }) => s.code)).toEqual(sites.slice(0, 100).map((s) => s.code));
    const second = await h.query(`{ sites(page: 2, pageSize: 100) { items { code } } }`);
    expect(second.data.sites.items.map((s: { code: string }) => s.code)).toEqual(sites.slice(100, 200).map((s) => s.code));
    const last = await h.query(`{ sites(page: 3, pageSize: 100) { hasNextPage items { code } } }`);
    expect(last.data.sites).toEqual({ hasNextPage: false, items: sites.slice(200).map((s) => ({ code: s.code })) });
  });

  it('learns the cap even when the first request is for a later page', async () => {
    h = await startGateway({ mock: { catalog: { sites: 250 }, behaviour: { maxPageSize: 30 } } });
    const { data } = await h.query(`{ sites(page: 2, pageSize: 70) { total items { code } } }`);
    expect(data.sites.items.map((s: { code: string }) => s.code)).toEqual(
      h.mock.catalog.sites.slice(70, 140).map((s) => s.code),
    );
  });

  it('refuses bad arguments with BAD_USER_INPUT before any upstream call', async () => {
    h = await startGateway();
    const queries = [
      `{ sites(page: 0) { total } }`,
      `{ cities(pageSize: 0) { total } }`,
      `{ products(pageSize: 101) { total } }`,
      `{ site(code: "") { code } }`,
      `{ product(goodsCode: "   ") { goodsCode } }`,
      `{ city(code: "") { code } }`,
    ];
    for (const query of queries) {
      const { errors } = await h.query(query);
      expect(errors?.[0]?.extensions?.code, query).toBe('BAD_USER_INPUT');
    }
    expect(h.mock.calls()).toBe(0);
    expect(h.mock.calls('/oauth/token')).toBe(0);
  });

  it('honours MAX_PAGE_SIZE', async () => {
    h = await startGateway({ env: { MAX_PAGE_SIZE: '20' } });
    const { errors } = await h.query(`{ sites(pageSize: 21) { total } }`);
    expect(errors?.[0]?.message).toMatch(/pageSize must be from 1 to 20, but got: 21/);
    expect(errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });

  for (const notFound of ['null', 'empty', 'error'] as const) {
    it(`answers null for unknown codes when the upstream signals not-found as ${notFound}`, async () => {
      h = await startGateway({ mock: { behaviour: { notFound, errorStatus: 404 } } });
      const { data, errors } = await h.query(`{ site(code: "S-NOPE") { code } product(goodsCode: "G-NOPE") { goodsCode } }`);
      expect(errors).toBeUndefined();
      expect(data).toEqual({ site: null, product: null });
    });
  }

  it('returns partial data with a coded error when product detail fails', async () => {
    h = await startGateway();
    h.mock.fault('/api/product/detail', { envelope: { code: 1001, msg: 'product service down' } });
    h.mock.fault('/api/products/list', { envelope: { code: 1001, msg: 'product service down' } });
    const site = h.mock.catalog.sites[0]!;
    const { data, errors } = await h.query(
      `query($c: String!) { site(code: $c) { code points { cargoLanes { stock product { productName } } } } }`,
      { c: site.code },
    );
    expect(data.site.code).toBe(site.code);
    expect(data.site.points[0].cargoLanes[0].stock).toBe(site.points[0]!.cargolanes[0]!.stock);
    expect(data.site.points[0].cargoLanes[0].product).toBeNull();
    expect(errors!.length).toBeGreaterThan(0);
    expect(errors![0]!.extensions).toEqual({ code: 'UPSTREAM_ERROR', upstreamCode: 1001 });
    // The upstream's msg is for the log: the client gets the code and a fixed message.
    expect(errors![0]!.message).toBe('The upstream answered with an error');
    expect(errors![0]!.path).toEqual(['site', 'points', 0, 'cargoLanes', expect.any(Number), 'product']);
  });

  it('reports an unavailable upstream as UPSTREAM_UNAVAILABLE and caches no error', async () => {
    h = await startGateway({ env: { UPSTREAM_RETRIES: '0' } });
    h.mock.fault('/api/city/list', 'http503', { times: 1 });
    const failed = await h.query(`{ cities { total } }`);
    expect(failed.errors?.[0]?.extensions?.code).toBe('UPSTREAM_UNAVAILABLE');
    const ok = await h.query(`{ cities { total } }`);
    expect(ok.data.cities.total).toBe(h.mock.catalog.cities.length);
  });

  it('coerces numbers sent as strings', async () => {
    h = await startGateway({ mock: { behaviour: { numbersAsStrings: true } } });
    const site = h.mock.catalog.sites[0]!;
    const { data } = await h.query(
      `{ sites(pageSize: 1) { items { state gradeType points { gradeType cargoLanes { stock guidePrice } } } }
         products(pageSize: 1) { items { ipId costPrice guidePrice } } cities(pageSize: 1) { items { cityId } } }`,
    );
    expect(data.sites.items[0].state).toBe(site.state);
    expect(data.sites.items[0].points[0].cargoLanes[0].stock).toBe(site.points[0]!.cargolanes[0]!.stock);
    expect(data.products.items[0]).toEqual({
      ipId: h.mock.catalog.products[0]!.ipId,
      costPrice: h.mock.catalog.products[0]!.costPrice,
      guidePrice: h.mock.catalog.products[0]!.guidePrice,
    });
    expect(data.cities.items[0].cityId).toBe(h.mock.catalog.cities[0]!.id);
  });

  it('keeps the rest of a page when one item is broken', async () => {
    h = await startGateway();
    const sites = h.mock.catalog.sites;
    Object.assign(sites[1]!, { code: undefined });
    Object.assign(sites[2]!, { lat: Number.NaN, state: 'on', name: 42 });
    const { data, errors } = await h.query(`{ sites(pageSize: 4) { total items { code name lat enabled } } }`);
    expect(errors).toBeUndefined();
    expect(data.sites.items.map((s: { code: string }) => s.code)).toEqual([sites[0]!.code, sites[2]!.code, sites[3]!.code]);
    expect(data.sites.items[1]).toEqual({ code: sites[2]!.code, name: '42', lat: null, enabled: false });
  });

  it('falls back to /api/sites/list when /api/site/list answers 404', async () => {
    h = await startGateway({ mock: { behaviour: { missingPaths: ['/api/site/list'] } } });
    const { data, errors } = await h.query(`{ sites(pageSize: 3) { items { code name } } }`);
    expect(errors).toBeUndefined();
    expect(data.sites.items).toMatchObject(h.mock.catalog.sites.slice(0, 3).map((s) => ({ code: s.code })));
    await h.query(`{ sites(page: 2, pageSize: 3) { items { code } } }`);
    expect(callsByPath(h.mock)).toEqual({ '/api/site/list': 1, '/api/sites/list': 2 });
  });

  it('shows changed stock once the sites TTL has passed, and not before', async () => {
    h = await startGateway({ env: { CACHE_TTL_SITES_S: '30' } });
    const site = h.mock.catalog.sites[0]!;
    const query = `query($c: String!) { site(code: $c) { points { code cargoLanes { stock } } } }`;
    const before = site.points[0]!.cargolanes[0]!.stock;
    await h.query(query, { c: site.code });
    h.mock.setStock(site.code, site.points[0]!.code, 0, before + 7);

    h.clock.advance(29_000);
    const cached = await h.query(query, { c: site.code });
    expect(cached.data.site.points[0].cargoLanes[0].stock).toBe(before);

    h.clock.advance(1_001);
    const fresh = await h.query(query, { c: site.code });
    expect(fresh.data.site.points[0].cargoLanes[0].stock).toBe(before + 7);
  });

  it('keeps products for their own, longer TTL', async () => {
    h = await startGateway({ env: { CACHE_TTL_SITES_S: '30', CACHE_TTL_PRODUCTS_S: '600' } });
    const product = h.mock.catalog.products[0]!;
    const query = `query($g: String!) { product(goodsCode: $g) { productName } }`;
    await h.query(query, { g: product.goodsCode });
    h.clock.advance(60_000);
    await h.query(query, { g: product.goodsCode });
    expect(h.mock.calls('/api/product/detail')).toBe(1);
    h.clock.advance(600_000);
    await h.query(query, { g: product.goodsCode });
    expect(h.mock.calls('/api/product/detail')).toBe(2);
  });

  it('hides a token that expires between queries', async () => {
    h = await startGateway();
    await h.query(`{ cities { total } }`);
    h.mock.expireAllTokens();
    const { data, errors } = await h.query(`{ products { total } }`);
    expect(errors).toBeUndefined();
    expect(data.products.total).toBe(h.mock.catalog.products.length);
    expect(h.mock.calls('/oauth/token')).toBe(2);
  });

  it('hides a token that expires in the middle of a query', async () => {
    h = await startGateway();
    await h.query(`{ cities { total } }`);
    // 300 ms per call: the product details cannot start before the site detail's answer, which
    // leaves the test ample time to expire the token in between, however busy the machine.
    h.mock.setLatency(300);
    const site = h.mock.catalog.sites[0]!;
    const pending = h.query(
      `query($c: String!) { site(code: $c) { points { cargoLanes { product { productName } } } } }`,
      { c: site.code },
    );
    // Once the site detail is in flight, the product details come after it, with an expired token.
    await until(() => h.mock.calls('/api/site/detail') === 1);
    h.mock.expireAllTokens();
    const { data, errors } = await pending;
    expect(errors).toBeUndefined();
    expect(data.site.points[0].cargoLanes.some((lane: { product: unknown }) => lane.product !== null)).toBe(true);
    expect(h.mock.tokenTimeoutsSent()).toBeGreaterThan(0);
    expect(h.mock.calls('/oauth/token')).toBe(2);
  });

  it('serves sites whose plain fields match whichever list answered', async () => {
    h = await startGateway();
    const { data } = await h.query(`{ sites(pageSize: 5) { items { code name state enabled openTime closeTime address addressExt lat lng images points { code } } } }`);
    const expected = h.mock.catalog.sites.slice(0, 5).map(expectedSite);
    expect(data.sites.items).toMatchObject(expected);
  });
});
