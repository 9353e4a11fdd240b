/**
 * The queries of the graph contract, in the order contract.test.ts sends them: that test checks
 * their answers against the mock's data.
 */
import type { Catalog } from '../../../src/mock-upstream/index.js';
import { POINT_FIELDS, PRODUCT_FIELDS, SITE_FIELDS } from '../../helpers/expected.js';

/** A query as `h.query` sends it. */
export interface Operation {
  query: string;
  variables?: Record<string, unknown>;
}

/** The mock's catalog for the contract: big enough for a second and third page of everything. */
export const CONTRACT_CATALOG = { catalog: { sites: 30, cities: 8, products: 40 } };

/** The catalog entries the contract's queries name. */
export function picks(catalog: Catalog) {
  const { cities, sites, products } = catalog;
  return { city: cities[4]!, site: sites[7]!, linked: sites[2]!, product: products[20]!, named: sites[3]!, first: sites[0]! };
}

/** What `nodes` asks for by id, from the site `ofEntities` answered: the site, its city, its first point, a product on its lanes. */
export function entitiesOf(site: any) {
  const point = site.points[0];
  const product = site.points.flatMap((p: any) => p.cargoLanes).find((l: any) => l.product).product;
  return { site, city: site.city, point, product };
}

/** A well-formed id of a site the mock does not have. */
const MISSING_ID = Buffer.from(JSON.stringify(['Site', 'NO-SUCH-SITE'])).toString('base64url');

/**
 * Each query, from the catalog and the data of the queries sent before it (only `nodes` reads
 * one: the ids `ofEntities` answered).
 */
export const CONTRACT = {
  citiesPage: (): Operation => ({ query: `{ cities(page: 2, pageSize: 3) { total page pageSize hasNextPage items { id cityId code name } } }` }),
  lastCitiesPage: (catalog: Catalog): Operation => ({
    query: `{ cities(page: 2, pageSize: ${catalog.cities.length - 1}) { hasNextPage items { code } } }`,
  }),
  city: (catalog: Catalog): Operation => ({
    query: `query($c: String!) { city(code: $c) { cityId code name } none: city(code: "nope") { code } }`,
    variables: { c: picks(catalog).city.code },
  }),
  sitesPage: (): Operation => ({ query: `{ sites { total page pageSize hasNextPage items { ${SITE_FIELDS} } } }` }),
  sitesWithPoints: (): Operation => ({ query: `{ sites(page: 3, pageSize: 5) { items { code city { code name cityId } ${POINT_FIELDS} } } }` }),
  site: (catalog: Catalog): Operation => ({
    query: `query($c: String!) { site(code: $c) { ${SITE_FIELDS} city { code name cityId } ${POINT_FIELDS} } }`,
    variables: { c: picks(catalog).site.code },
  }),
  pointsToSite: (catalog: Catalog): Operation => ({
    query: `query($c: String!) { site(code: $c) { id points { site { id code } } } }`,
    variables: { c: picks(catalog).linked.code },
  }),
  products: (catalog: Catalog): Operation => ({
    query: `query($g: String!) { products(page: 2, pageSize: 4) { total hasNextPage items { ${PRODUCT_FIELDS} } }
                            product(goodsCode: $g) { ${PRODUCT_FIELDS} } }`,
    variables: { g: picks(catalog).product.goodsCode },
  }),
  ofEntities: (catalog: Catalog): Operation => ({
    query: `query($c: String!) { site(code: $c) { id code city { id code } points { id code cargoLanes { product { id goodsCode } } } } }`,
    variables: { c: picks(catalog).named.code },
  }),
  nodes: (_catalog: Catalog, data: Record<string, any>): Operation => {
    const { site, city, point, product } = entitiesOf(data.ofEntities.site);
    return {
      query: `query($s: ID!, $c: ID!, $p: ID!, $g: ID!) {
        s: node(id: $s) { __typename id ... on Site { code } }
        c: node(id: $c) { __typename id ... on City { code name cityId } }
        p: node(id: $p) { __typename id ... on Point { code site { code } } }
        g: node(id: $g) { __typename id ... on Product { goodsCode } } }`,
      variables: { s: site.id, c: city.id, p: point.id, g: product.id },
    };
  },
  missingNode: (): Operation => ({ query: `query($id: ID!) { node(id: $id) { id } }`, variables: { id: MISSING_ID } }),
  garbageNode: (): Operation => ({ query: `{ node(id: "not-an-id") { id } }` }),
  firstOfList: (): Operation => ({ query: `{ sites(pageSize: 1) { items { id points { id } } } }` }),
  firstByCode: (catalog: Catalog): Operation => ({
    query: `query($c: String!) { site(code: $c) { id points { id } } }`,
    variables: { c: picks(catalog).first.code },
  }),
  sitesConnection: (): Operation => ({
    query: `{ sitesConnection(first: 4) { totalCount edges { cursor node { code } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }`,
  }),
  // From the second edge: a window over two upstream pages, with points (list-with-points).
  sitesConnectionAfter: (_catalog: Catalog, data: Record<string, any>): Operation => ({
    query: `query($after: String) { sitesConnection(first: 4, after: $after) { totalCount edges { cursor node { code points { code } } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }`,
    variables: { after: data.sitesConnection.sitesConnection.edges[1].cursor },
  }),
  // Backward from the end: page 1 at 3 tells the length, then the last 3 (the index's lists are
  // not stored by the response cache, so the contract pages only upstream lists).
  lastProducts: (): Operation => ({
    query: `{ productsConnection(last: 3) { totalCount edges { cursor node { goodsCode } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }`,
  }),
};
