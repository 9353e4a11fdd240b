/**
 * An answer's tags are what it shows (docs "Purging"), whichever cache level served its data: a
 * property over generated queries (lookups by code found or not, pages, connections, nested
 * cities, points, lanes and their products, global ids, aliased side by side), asked of a cold
 * gateway (queries in a row, each warming the caches for the next) and of one kept warm across
 * every run. For every answer, each entity found in its data (every entity selection asks
 * `__typename`) is named by its tag, or by its kind's list when its page or the cap named it so;
 * and no tag names an entity that is neither in the data, nor looked up by the query, nor behind
 * a lane's price.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeId } from '../../../src/graph/ids.js';
import { createMockUpstream, type MockUpstream } from '../../../src/mock-upstream/index.js';
import { fuzzParameters } from '../../fuzz/settings.js';
import { startGateway, type Harness } from '../../helpers/gateway.js';

/** The list tag naming the entities of each kind (request/tags.ts). */
const LIST_OF: Record<string, string> = { site: 'sites', product: 'products', city: 'cities' };
const UNKNOWN = { site: 'S999999', product: 'G999999', city: 'ZZ' };

/** A generated query, and the codes it looks up by (found or not: both are tagged). */
interface Generated {
  query: string;
  asked: string[];
}

const part = (on: boolean, text: string) => (on ? ` ${text}` : '');

function arbitraries(mock: MockUpstream) {
  const pick = <T>(values: readonly T[], unknown: T) => fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...values) }, { weight: 1, arbitrary: fc.constant(unknown) });
  const siteCode = pick(mock.catalog.sites.slice(0, 12).map((site) => site.code), UNKNOWN.site);
  const goodsCode = pick(mock.catalog.products.slice(0, 12).map((product) => product.goodsCode), UNKNOWN.product);
  const cityCode = pick(mock.catalog.cities.map((city) => city.code), UNKNOWN.city);

  const city = fc.boolean().map((name) => `{ __typename code${part(name, 'name')} }`);
  const product = fc.record({ name: fc.boolean(), price: fc.boolean() })
    .map(({ name, price }) => `{ __typename goodsCode${part(name, 'productName')}${part(price, 'guidePrice')} }`);
  // A lane's price may be its product's: the lane's goodsCode says which, for the check.
  const lanes = fc.record({ price: fc.boolean(), product: fc.option(product, { nil: undefined }) })
    .map(({ price, product: inner }) => `cargoLanes { goodsCode stock${part(price, 'guidePrice')}${inner ? ` product ${inner}` : ''} }`);
  const points = fc.record({ lanes: fc.option(lanes, { nil: undefined }), site: fc.boolean() })
    .map(({ lanes: inner, site }) => `points { code${inner ? ` ${inner}` : ''}${part(site, 'site { __typename code }')} }`);
  const siteOf = (withPoints: boolean) => fc.record({ name: fc.boolean(), city: fc.option(city, { nil: undefined }), points: fc.option(points, { nil: undefined }) })
    .map(({ name, city: inner, points: more }) => `{ __typename code${part(name, 'name')}${inner ? ` city ${inner}` : ''}${more && withPoints ? ` ${more}` : ''} }`);
  const site = siteOf(true);
  // An edge's node is a level deeper than a page's item: its lanes would pass the depth limit.
  const edgeSite = siteOf(false);
  const page = fc.record({ page: fc.integer({ min: 1, max: 3 }), size: fc.integer({ min: 1, max: 4 }) });
  const first = fc.integer({ min: 1, max: 4 });

  const root: fc.Arbitrary<Generated> = fc.oneof(
    fc.tuple(siteCode, site).map(([code, selection]) => ({ query: `site(code: "${code}") ${selection}`, asked: [`site:${code}`] })),
    fc.tuple(goodsCode, product).map(([code, selection]) => ({ query: `product(goodsCode: "${code}") ${selection}`, asked: [`product:${code}`] })),
    fc.tuple(cityCode, city).map(([code, selection]) => ({ query: `city(code: "${code}") ${selection}`, asked: [`city:${code}`] })),
    fc.tuple(page, site).map(([{ page: p, size }, selection]) => ({ query: `sites(page: ${p}, pageSize: ${size}) { total items ${selection} }`, asked: [] })),
    fc.tuple(page, product).map(([{ page: p, size }, selection]) => ({ query: `products(page: ${p}, pageSize: ${size}) { items ${selection} }`, asked: [] })),
    fc.tuple(page, city).map(([{ page: p, size }, selection]) => ({ query: `cities(page: ${p}, pageSize: ${size}) { items ${selection} }`, asked: [] })),
    fc.tuple(first, edgeSite).map(([n, selection]) => ({ query: `sitesConnection(first: ${n}) { totalCount edges { cursor node ${selection} } }`, asked: [] })),
    fc.tuple(first, product).map(([n, selection]) => ({ query: `productsConnection(first: ${n}) { edges { node ${selection} } }`, asked: [] })),
    fc.tuple(siteCode, site).map(([code, selection]) => ({ query: `node(id: "${encodeId('Site', code)}") { ... on Site ${selection} }`, asked: [`site:${code}`] })),
    fc.tuple(goodsCode, product).map(([code, selection]) => ({ query: `node(id: "${encodeId('Product', code)}") { ... on Product ${selection} }`, asked: [`product:${code}`] })),
  );
  // One to three roots side by side, each under an alias.
  const query = fc.array(root, { minLength: 1, maxLength: 3 }).map((roots): Generated => ({
    query: `{ ${roots.map((one, i) => `a${i}: ${one.query}`).join(' ')} }`,
    asked: roots.flatMap((one) => one.asked),
  }));
  return { query, queries: fc.array(query, { minLength: 1, maxLength: 4 }) };
}

/** The entities found in an answer's data (by `__typename`), and the products behind the lanes' prices. */
function shown(data: unknown): { entities: Set<string>; priced: Set<string> } {
  const entities = new Set<string>();
  const priced = new Set<string>();
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(walk);
    if (typeof value !== 'object' || value === null) return;
    const object = value as Record<string, unknown>;
    if (object.__typename === 'Site' || object.__typename === 'City') entities.add(`${String(object.__typename).toLowerCase()}:${String(object.code)}`);
    if (object.__typename === 'Product') entities.add(`product:${String(object.goodsCode)}`);
    if (object.__typename === undefined && 'guidePrice' in object && typeof object.goodsCode === 'string') priced.add(`product:${object.goodsCode}`);
    Object.values(object).forEach(walk);
  };
  walk(data);
  return { entities, priced };
}

async function ask(h: Harness, { query, asked }: Generated): Promise<void> {
  const response = await fetch(`${h.url}/graphql?${new URLSearchParams({ query })}`, { headers: { accept: 'application/graphql-response+json' } });
  const body = (await response.json()) as { data?: unknown; errors?: unknown };
  expect(body.errors, query).toBeUndefined();
  expect(response.headers.get('cache-control'), query).toMatch(/^public, max-age=\d+$/);
  const tags = new Set(response.headers.get('surrogate-key')?.split(' ') ?? []);
  const { entities, priced } = shown(body.data);
  for (const entity of entities) {
    const list = LIST_OF[entity.slice(0, entity.indexOf(':'))]!;
    expect(tags.has(entity) || tags.has(list), `${query}: ${entity} is named by ${[...tags].join(' ')}`).toBe(true);
  }
  const known = new Set([...entities, ...asked, ...priced]);
  for (const tag of tags) {
    if (tag.includes(':')) expect(known.has(tag), `${query}: ${tag} names nothing the answer shows`).toBe(true);
  }
}

describe('the tags of every answer', () => {
  let mock: MockUpstream;
  let warm: Harness;
  beforeAll(async () => {
    mock = await createMockUpstream();
    warm = await startGateway({ sharedMock: mock });
  });
  afterAll(async () => {
    await warm.close();
    await mock.close();
  });

  it('name what it shows on a cold gateway, each query warming the caches for the next', async () => {
    const { queries } = arbitraries(mock);
    await fc.assert(fc.asyncProperty(queries, async (asked) => {
      const h = await startGateway({ sharedMock: mock });
      try {
        for (const one of asked) await ask(h, one);
      } finally {
        await h.close();
      }
    }), fuzzParameters(20));
  });

  it('name what it shows on a gateway kept warm by every query before, made or stored', async () => {
    const { queries } = arbitraries(mock);
    await fc.assert(fc.asyncProperty(queries, async (asked) => {
      for (const one of asked) await ask(warm, one);
    }), fuzzParameters(60));
  });
});
