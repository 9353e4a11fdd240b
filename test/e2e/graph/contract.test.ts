import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cityOf, expectedPoints, expectedProduct, expectedSite } from '../../helpers/expected.js';
import { startGateway, type Harness } from '../../helpers/gateway.js';
import { CONTRACT, CONTRACT_CATALOG, entitiesOf, picks, type Operation } from './contract-queries.js';

describe('the graph contract, compared with the mock upstream’s own data', () => {
  let h: Harness;
  const ask = ({ query, variables }: Operation) => h.query(query, variables);
  beforeAll(async () => {
    h = await startGateway({ mock: CONTRACT_CATALOG });
  });
  afterAll(() => h.close());

  it('pages cities with total, page, pageSize and hasNextPage', async () => {
    const { cities } = h.mock.catalog;
    const { data, errors } = await ask(CONTRACT.citiesPage());
    expect(errors).toBeUndefined();
    expect(data.cities).toMatchObject({ total: cities.length, page: 2, pageSize: 3, hasNextPage: true });
    expect(data.cities.items.map(({ id: _, ...city }: { id: string }) => city)).toEqual(
      cities.slice(3, 6).map((city) => ({ cityId: city.id, code: city.code, name: city.name })),
    );
  });

  it('says there is no next page on the last page', async () => {
    const { data } = await ask(CONTRACT.lastCitiesPage(h.mock.catalog));
    expect(data.cities).toEqual({ hasNextPage: false, items: [{ code: h.mock.catalog.cities.at(-1)!.code }] });
  });

  it('finds a city by code, and answers null for an unknown one', async () => {
    const { city } = picks(h.mock.catalog);
    const { data } = await ask(CONTRACT.city(h.mock.catalog));
    expect(data).toEqual({ city: { cityId: city.id, code: city.code, name: city.name }, none: null });
  });

  it('serves a plain sites page with every plain field normalised', async () => {
    const sites = h.mock.catalog.sites.slice(0, 10);
    const { data, errors } = await ask(CONTRACT.sitesPage());
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
    const { data, errors } = await ask(CONTRACT.sitesWithPoints());
    expect(errors).toBeUndefined();
    expect(data.sites.items).toEqual(
      sites.map((site) => ({ code: site.code, city: cityOf(h.mock.catalog, site), points: expectedPoints(h.mock.catalog, site) })),
    );
  });

  it('serves one site by code with its points, lanes, city, and the lane price from the product', async () => {
    const { site } = picks(h.mock.catalog);
    const { data, errors } = await ask(CONTRACT.site(h.mock.catalog));
    expect(errors).toBeUndefined();
    expect(data.site).toMatchObject({ ...expectedSite(site), city: cityOf(h.mock.catalog, site) });
    // Site detail carries no lane guidePrice: the graph fills it in from the product.
    expect(data.site.points).toEqual(expectedPoints(h.mock.catalog, site));
  });

  it('links each point back to its site', async () => {
    const { linked } = picks(h.mock.catalog);
    const { data } = await ask(CONTRACT.pointsToSite(h.mock.catalog));
    for (const point of data.site.points) expect(point.site).toEqual({ id: data.site.id, code: linked.code });
  });

  it('pages products and finds one by goods code', async () => {
    const products = h.mock.catalog.products;
    const { data, errors } = await ask(CONTRACT.products(h.mock.catalog));
    expect(errors).toBeUndefined();
    expect(data.products).toMatchObject({ total: products.length, hasNextPage: true });
    expect(data.products.items).toMatchObject(products.slice(4, 8).map(expectedProduct));
    expect(data.product).toMatchObject(expectedProduct(picks(h.mock.catalog).product));
  });

  it('gives every entity an id that node(id) turns back into the same object', async () => {
    const site = picks(h.mock.catalog).named;
    const { data } = await ask(CONTRACT.ofEntities(h.mock.catalog));
    const { point, product } = entitiesOf(data.site);
    const ids = [data.site.id, data.site.city.id, point.id, product.id];
    expect(new Set(ids).size).toBe(4);

    const { data: nodes, errors } = await ask(CONTRACT.nodes(h.mock.catalog, { ofEntities: data }));
    expect(errors).toBeUndefined();
    expect(nodes).toEqual({
      s: { __typename: 'Site', id: ids[0], code: site.code },
      c: { __typename: 'City', id: ids[1], ...cityOf(h.mock.catalog, site) },
      p: { __typename: 'Point', id: ids[2], code: point.code, site: { code: site.code } },
      g: { __typename: 'Product', id: ids[3], goodsCode: product.goodsCode },
    });
  });

  it('answers node(id) with null for a well-formed id of a missing object, and BAD_USER_INPUT for garbage', async () => {
    const { data } = await ask(CONTRACT.missingNode());
    expect(data).toEqual({ node: null });
    const bad = await ask(CONTRACT.garbageNode());
    expect(bad.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });

  it('keeps ids stable across queries and sources', async () => {
    const fromList = await ask(CONTRACT.firstOfList());
    const fromDetail = await ask(CONTRACT.firstByCode(h.mock.catalog));
    expect(fromDetail.data.site).toEqual(fromList.data.sites.items[0]);
  });

  it('pages sites by cursor as the contract lists them: from an edge on, and the last three products', async () => {
    const { sites } = h.mock.catalog;
    const head = await ask(CONTRACT.sitesConnection());
    expect(head.data.sitesConnection.edges.map((edge: any) => edge.node.code)).toEqual(sites.slice(0, 4).map((site) => site.code));
    const after = await ask(CONTRACT.sitesConnectionAfter(h.mock.catalog, { sitesConnection: head.data }));
    expect(after.data.sitesConnection.edges.map((edge: any) => edge.node.code)).toEqual(sites.slice(2, 6).map((site) => site.code));
    expect(after.data.sitesConnection.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: true });
    const last = await ask(CONTRACT.lastProducts());
    expect(last.data.productsConnection.edges.map((edge: any) => edge.node.goodsCode)).toEqual(h.mock.catalog.products.slice(-3).map((p) => p.goodsCode));
    expect(last.data.productsConnection.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
  });
});

