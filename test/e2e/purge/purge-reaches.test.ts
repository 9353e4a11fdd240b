/**
 * A purge reaches every stored answer that shows what it names (docs "Purging"), whichever
 * cache level served the answer's data: an answer's tags come from what it shows, not from what
 * its request happened to fetch. The first site's answer walks list-with-points, which primes the
 * other sites and their cities; theirs, asked next, show their cities as well and carry their
 * tags. An entity named only by its list (past the cap) is reached through the list's tag, and an
 * answer saying an entity does not exist is reached by the entity's tag.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startGateway, type Harness } from '../../helpers/gateway.js';

const ADMIN_KEY = 'purge-reach-admin-key-0001';
const SITE = `query Site($c: String!) { site(code: $c) { code city { code name } } }`;
const PRODUCT = `query Product($g: String!) { product(goodsCode: $g) { goodsCode productName } }`;
const LANES = `query Lanes { sites(pageSize: 50) { items { code points { cargoLanes { product { goodsCode productName } } } } } }`;

/** `query` as a GET (tags are sent with GET answers only), its tags and what it says. */
async function getQuery(h: Harness, query: string, variables?: Record<string, unknown>) {
  const params = new URLSearchParams({ query, ...(variables && { variables: JSON.stringify(variables) }) });
  const response = await fetch(`${h.url}/graphql?${params}`, { headers: { accept: 'application/graphql-response+json' } });
  return { cache: response.headers.get('x-cache'), tags: response.headers.get('surrogate-key')?.split(' ') ?? [], body: await response.json() };
}

async function purge(h: Harness, tags: string[]) {
  const response = await fetch(`${h.url}/admin/purge`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_KEY}` },
    body: JSON.stringify({ tags }),
  });
  return { status: response.status, body: await response.json() };
}

describe('a purge', () => {
  let h: Harness;
  afterEach(() => h.close());

  it("of a city reaches the sites' answers asked once the site-to-city map was warm, which come back with its new name", async () => {
    h = await startGateway({ env: { ADMIN_API_KEYS: ADMIN_KEY } });
    const sites = h.mock.catalog.sites.slice(0, 3);
    const answers = [];
    for (const site of sites) answers.push(await getSite(site.code));
    for (const [i, site] of sites.entries()) {
      expect(answers[i]!.body.data.site.city.code).toBe(site.cityCode);
      expect(answers[i]!.tags).toContain(`city:${site.cityCode}`);
      expect((await getSite(site.code)).cache).toBe('hit');
    }

    // The cities of the sites asked after the first, renamed upstream, then purged.
    const renamed = h.mock.catalog.cities.filter((city) => sites.slice(1).some((site) => site.cityCode === city.code));
    for (const city of renamed) city.name = `${city.name} (renamed)`;
    const answer = await purge(h, renamed.map((city) => `city:${city.code}`));
    expect(answer.status).toBe(200);
    expect(answer.body.purged).toBeGreaterThan(0);

    for (const site of sites.filter((one) => renamed.some((city) => city.code === one.cityCode))) {
      const city = renamed.find((one) => one.code === site.cityCode)!;
      const again = await getSite(site.code);
      expect([again.cache, again.body.data.site.city]).toEqual(['miss', { code: city.code, name: city.name }]);
    }
  });

  it('of a product reaches an answer that named it by its list past the cap', async () => {
    h = await startGateway({ env: { ADMIN_API_KEYS: ADMIN_KEY }, mock: { catalog: { sites: 50, products: 400, lanesPerPoint: 8 } } });
    const made = await getQuery(h, LANES);
    expect(made.tags).toEqual(['products', 'sites']);
    const shown = made.body.data.sites.items[0].points[0].cargoLanes[0].product;
    expect((await getQuery(h, LANES)).cache).toBe('hit');

    const product = h.mock.catalog.products.find((one) => one.goodsCode === shown.goodsCode)!;
    product.productName = `${product.productName} (renamed)`;
    expect((await purge(h, [`product:${product.goodsCode}`])).body.purged).toBeGreaterThan(0);
    const again = await getQuery(h, LANES);
    expect([again.cache, again.body.data.sites.items[0].points[0].cargoLanes[0].product]).toEqual(['miss', { goodsCode: product.goodsCode, productName: product.productName }]);
  });

  it('of a product reaches the answer that said it did not exist', async () => {
    h = await startGateway({ env: { ADMIN_API_KEYS: ADMIN_KEY } });
    const missing = await getQuery(h, PRODUCT, { g: 'G999999' });
    expect([missing.body.data.product, missing.tags]).toEqual([null, ['product:G999999']]);
    expect((await getQuery(h, PRODUCT, { g: 'G999999' })).cache).toBe('hit');
    expect((await purge(h, ['product:G999999'])).body.purged).toBeGreaterThan(0);
    expect((await getQuery(h, PRODUCT, { g: 'G999999' })).cache).toBe('miss');
  });

  function getSite(code: string) {
    return getQuery(h, SITE, { c: code });
  }
});
