import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cityOf,
  expectedPoints,
  expectedProduct,
  expectedSite,
  POINT_FIELDS,
  PRODUCT_FIELDS,
  SITE_FIELDS,
} from '../../helpers/expected.js';
import { startGateway, type Harness } from '../../helpers/gateway.js';

describe('the graph contract, compared with the mock upstream’s own data', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startGateway({ mock: { catalog: { sites: 30, cities: 8, products: 40 } } });
  });
  afterAll(() => h.close());

  it('pages cities with total, page, pageSize and hasNextPage', async () => {
    const { cities } = h.mock.catalog;
    const { data, errors } = await h.query(
      `{ cities(page: 2, pageSize: 3) { total page pageSize hasNextPage items { id cityId code name } } }`,
    );
    expect(errors).toBeUndefined();
    expect(data.cities).toMatchObject({ total: cities.length, page: 2, pageSize: 3, hasNextPage: true });
    expect(data.cities.items.map(({ id: _, ...city }: { id: string }) => city)).toEqual(
      cities.slice(3, 6).map((city) => ({ cityId: city.id, code: city.code, name: city.name })),
    );
  });

  it('says there is no next page on the last page', async () => {
    const total = h.mock.catalog.cities.length;
    const { data } = await h.query(`{ cities(page: 2, pageSize: ${total - 1}) { hasNextPage items { code } } }`);
    expect(data.cities).toEqual({ hasNextPage: false, items: [{ code: h.mock.catalog.cities.at(-1)!.code }] });
  });

  it('finds a city by code, and answers null for an unknown one', async () => {
    const city = h.mock.catalog.cities[4]!;
    const { data } = await h.query(`query($c: String!) { city(code: $c) { cityId code name } none: city(code: "nope") { code } }`, {
      c: city.code,
    });
    expect(data).toEqual({ city: { cityId: city.id, code: city.code, name: city.name }, none: null });
  });

  it('serves a plain sites page with every plain field normalised', async () => {
    const sites = h.mock.catalog.sites.slice(0, 10);
    const { data, errors } = await h.query(`{ sites { total page pageSize hasNextPage items { ${SITE_FIELDS} } } }`);
    expect(errors).toBeUndefined();
    expect(data.sites).toMatchObject({ total: h.mock.catalog.sites.length, page: 1, pageSize: 10, hasNextPage: true });
    expect(data.sites.items).toMatchObject(sites.map(expectedSite));
    data.sites.items.forEach((item: Record<string, unknown>, i: number) => {
      expect(item.siteType).toBe(sites[i]!.siteType);
      expect(item.gradeType).toBe(sites[i]!.gradeType);
    });
  });

  it('serves sites with their city, points, lanes and products', async () => {
    const sites = h.mock.catalog.sites.slice(10, 15);
    const { data, errors } = await h.query(
      `{ sites(page: 3, pageSize: 5) { items { code city { code name cityId } ${POINT_FIELDS} } } }`,
    );
    expect(errors).toBeUndefined();
    expect(data.sites.items).toEqual(
      sites.map((site) => ({ code: site.code, city: cityOf(h.mock.catalog, site), points: expectedPoints(h.mock.catalog, site) })),
    );
  });

  it('serves one site by code with its points, lanes, city, and the lane price from the product', async () => {
    const site = h.mock.catalog.sites[7]!;
    const { data, errors } = await h.query(
      `query($c: String!) { site(code: $c) { ${SITE_FIELDS} city { code name cityId } ${POINT_FIELDS} } }`,
      { c: site.code },
    );
    expect(errors).toBeUndefined();
    expect(data.site).toMatchObject({ ...expectedSite(site), city: cityOf(h.mock.catalog, site) });
    // Site detail carries no lane guidePrice: the graph fills it in from the product.
    expect(data.site.points).toEqual(expectedPoints(h.mock.catalog, site));
  });

  it('links each point back to its site', async () => {
    const site = h.mock.catalog.sites[2]!;
    const { data } = await h.query(`query($c: String!) { site(code: $c) { id points { site { id code } } } }`, {
      c: site.code,
    });
    for (const point of data.site.points) expect(point.site).toEqual({ id: data.site.id, code: site.code });
  });

  it('pages products and finds one by goods code', async () => {
    const products = h.mock.catalog.products;
    const { data, errors } = await h.query(
      `query($g: String!) { products(page: 2, pageSize: 4) { total hasNextPage items { ${PRODUCT_FIELDS} } }
                            product(goodsCode: $g) { ${PRODUCT_FIELDS} } }`,
      { g: products[20]!.goodsCode },
    );
    expect(errors).toBeUndefined();
    expect(data.products).toMatchObject({ total: products.length, hasNextPage: true });
    expect(data.products.items).toMatchObject(products.slice(4, 8).map(expectedProduct));
    expect(data.product).toMatchObject(expectedProduct(products[20]!));
  });

  it('gives every entity an id that node(id) turns back into the same object', async () => {
    const site = h.mock.catalog.sites[3]!;
    const { data } = await h.query(
      `query($c: String!) { site(code: $c) { id code city { id code } points { id code cargoLanes { product { id goodsCode } } } } }`,
      { c: site.code },
    );
    const point = data.site.points[0];
    const product = data.site.points.flatMap((p: any) => p.cargoLanes).find((l: any) => l.product).product;
    const ids = [data.site.id, data.site.city.id, point.id, product.id];
    expect(new Set(ids).size).toBe(4);

    const { data: nodes, errors } = await h.query(
      `query($s: ID!, $c: ID!, $p: ID!, $g: ID!) {
        s: node(id: $s) { __typename id ... on Site { code } }
        c: node(id: $c) { __typename id ... on City { code name cityId } }
        p: node(id: $p) { __typename id ... on Point { code site { code } } }
        g: node(id: $g) { __typename id ... on Product { goodsCode } } }`,
      { s: ids[0], c: ids[1], p: ids[2], g: ids[3] },
    );
    expect(errors).toBeUndefined();
    expect(nodes).toEqual({
      s: { __typename: 'Site', id: ids[0], code: site.code },
      c: { __typename: 'City', id: ids[1], ...cityOf(h.mock.catalog, site) },
      p: { __typename: 'Point', id: ids[2], code: point.code, site: { code: site.code } },
      g: { __typename: 'Product', id: ids[3], goodsCode: product.goodsCode },
    });
  });

  it('answers node(id) with null for a well-formed id of a missing object, and BAD_USER_INPUT for garbage', async () => {
    const missing = Buffer.from(JSON.stringify(['Site', 'NO-SUCH-SITE'])).toString('base64url');
    const { data } = await h.query(`query($id: ID!) { node(id: $id) { id } }`, { id: missing });
    expect(data).toEqual({ node: null });
    const bad = await h.query(`{ node(id: "not-an-id") { id } }`);
    expect(bad.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });

  it('keeps ids stable across queries and sources', async () => {
    const site = h.mock.catalog.sites[0]!;
    const fromList = await h.query(`{ sites(pageSize: 1) { items { id points { id } } } }`);
    const fromDetail = await h.query(`query($c: String!) { site(code: $c) { id points { id } } }`, { c: site.code });
    expect(fromDetail.data.site).toEqual(fromList.data.sites.items[0]);
  });
});
