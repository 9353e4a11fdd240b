/**
 * `Surrogate-Key` and `Cache-Tag` (docs "Purging"): every answer a shared cache may keep (a GET
 * with a shared Cache-Control), made or stored, names the upstream data it was built from; a page
 * names its list, not its entities, and the list stays under the cap however many entities an
 * answer read. A POST answer (no-store, on either door) names none: no cache could purge it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { TAGS_MAX_BYTES } from '../../../src/request/tags.js';
import { startGateway, type Harness } from '../../helpers/gateway.js';
import { post } from '../../helpers/http.js';

const SITE = `query Site($c: String!) { site(code: $c) { code city { code } } }`;
const PRODUCT = `query Product($g: String!) { product(goodsCode: $g) { goodsCode productName } }`;
const SITES = `query Sites { sites(pageSize: 5) { items { code name } } }`;
const CITIES = `query Cities { cities(pageSize: 3) { items { code } } }`;
const LANES = `query Lanes { sites(pageSize: 50) { items { code points { cargoLanes { product { goodsCode } } } } } }`;

/** `query` as a GET. */
async function getQuery(h: Harness, query: string, variables?: Record<string, unknown>) {
  const params = new URLSearchParams({ query, ...(variables && { variables: JSON.stringify(variables) }) });
  const response = await fetch(`${h.url}/graphql?${params}`, { headers: { accept: 'application/graphql-response+json' } });
  return { headers: response.headers, body: await response.json() };
}

const tagsOf = (headers: Headers) => ({ surrogate: headers.get('surrogate-key'), cloudflare: headers.get('cache-tag') });

describe('the tags of an answer', () => {
  let h: Harness;
  afterEach(() => h.close());

  it('names the site, product, list or city a GET answer was built from, made and stored', async () => {
    h = await startGateway();
    const site = h.mock.catalog.sites.find((candidate) => candidate.cityCode !== null)!;
    const product = h.mock.catalog.products[0]!.goodsCode;
    const cases: Array<[string, Record<string, unknown> | undefined, string[]]> = [
      // Its city comes from the walk of list-with-points (the detail names none): `sites` drops that walk.
      [SITE, { c: site.code }, [`city:${site.cityCode}`, `site:${site.code}`, 'sites']],
      [PRODUCT, { g: product }, [`product:${product}`]],
      [SITES, undefined, ['sites']],
      [CITIES, undefined, ['cities']],
    ];
    for (const [query, variables, tags] of cases) {
      const made = await getQuery(h, query, variables);
      const stored = await getQuery(h, query, variables);
      expect([made.headers.get('x-cache'), stored.headers.get('x-cache')]).toEqual(['miss', 'hit']);
      for (const answer of [made, stored]) {
        expect(answer.headers.get('cache-control')).toMatch(/^public, max-age=\d+$/);
        expect(tagsOf(answer.headers)).toEqual({ surrogate: tags.join(' '), cloudflare: tags.join(',') });
      }
    }
  });

  it(`sends no tags with a POST answer, made or stored, which no cache keeps`, async () => {
    h = await startGateway();
    const product = h.mock.catalog.products[0]!.goodsCode;
    const made = await post(h, PRODUCT, { variables: { g: product } });
    const stored = await post(h, PRODUCT, { variables: { g: product } });
    expect([made.headers.get('x-cache'), stored.headers.get('x-cache')]).toEqual(['miss', 'hit']);
    for (const answer of [made, stored]) {
      expect(answer.headers.get('cache-control')).toBe('no-store');
      expect(tagsOf(answer.headers)).toEqual({ surrogate: null, cloudflare: null });
    }
  });

  it('sends no tags with an answer that has an error, as it sends no shared Cache-Control', async () => {
    h = await startGateway();
    const answer = await getQuery(h, SITE, { c: 42 });
    expect(answer.body.errors).toBeDefined();
    expect(tagsOf(answer.headers)).toEqual({ surrogate: null, cloudflare: null });
  });

  it('names the list instead of its products once a page read more products than the cap holds', async () => {
    h = await startGateway({ mock: { catalog: { sites: 50, products: 400, lanesPerPoint: 8 } } });
    const answer = await getQuery(h, LANES);
    expect(answer.body.errors).toBeUndefined();
    const read = new Set(answer.body.data.sites.items.flatMap((item: any) =>
      item.points.flatMap((point: any) => point.cargoLanes.flatMap((lane: any) => (lane.product ? [lane.product.goodsCode] : [])))));
    // Without the cap the products alone would pass it.
    expect([...read].map((code) => `product:${code}`).join(' ').length).toBeGreaterThan(TAGS_MAX_BYTES);
    const { surrogate, cloudflare } = tagsOf(answer.headers);
    expect(surrogate).toBe('products sites');
    expect(cloudflare).toBe('products,sites');
  });
});
