/**
 * `POST /admin/purge` (docs "Purging"): off without ADMIN_API_KEYS, for admin keys only, and a
 * purge of a tag drops the data and the answers built from it and nothing else: the next request
 * for them costs exactly their upstream calls, while every other answer is still a hit. Each purge
 * is counted and logged with the admin key's fingerprint, never the key.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startGateway, type Harness } from '../../helpers/gateway.js';
import { logEntries, metric, post, scrape } from '../../helpers/http.js';

const ADMIN_KEY = 'purge-test-admin-key-0001';
const CLIENT_KEY = 'purge-test-client-key-0001';
const SITE = `query Site($c: String!) { site(code: $c) { code name } }`;
const PRODUCT = `query Product($g: String!) { product(goodsCode: $g) { goodsCode productName } }`;
const SITES = `query Sites { sites(pageSize: 5) { items { code name } } }`;

async function purge(h: Harness, body: unknown, headers: Record<string, string> = { authorization: `Bearer ${ADMIN_KEY}` }, method = 'POST') {
  const response = await fetch(`${h.url}/admin/purge`, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    ...(method === 'POST' ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: JSON.parse(text), text };
}

const codeOf = (answer: { body: any }) => answer.body.errors?.[0]?.extensions?.code;

describe('the purge endpoint', () => {
  let h: Harness;
  afterEach(() => h.close());

  it('is not there (404) without ADMIN_API_KEYS, whatever is sent', async () => {
    h = await startGateway();
    const answer = await purge(h, { tags: ['sites'] });
    expect([answer.status, codeOf(answer)]).toEqual([404, 'NOT_FOUND']);
  });

  it('refuses a missing key, a wrong key and a client key with 401, and a bad body or method with 400', async () => {
    h = await startGateway({ env: { ADMIN_API_KEYS: ADMIN_KEY, GATEWAY_API_KEYS: CLIENT_KEY } });
    const refused: Array<[string, Awaited<ReturnType<typeof purge>>]> = [
      ['no key', await purge(h, { tags: ['sites'] }, {})],
      ['a wrong key', await purge(h, { tags: ['sites'] }, { authorization: 'Bearer not-the-admin-key-at-all' })],
      ['a client key', await purge(h, { tags: ['sites'] }, { 'x-api-key': CLIENT_KEY })],
    ];
    for (const [name, answer] of refused) expect([name, answer.status, codeOf(answer)]).toEqual([name, 401, 'UNAUTHENTICATED']);
    expect(refused[1]![1].headers.get('www-authenticate')).toContain('invalid_token');
    const bad: Array<[string, unknown]> = [
      ['not JSON', '{tags'], ['no tags', {}], ['an empty list', { tags: [] }], ['a tag that is not one', { tags: ['site:S1 sites'] }],
      ['a number', { tags: [1] }], ['too many', { tags: Array.from({ length: 101 }, (_, i) => `site:S${i}`) }],
    ];
    for (const [name, body] of bad) {
      const answer = await purge(h, body);
      expect([name, answer.status, codeOf(answer)]).toEqual([name, 400, 'BAD_REQUEST']);
    }
    const got = await purge(h, undefined, { 'x-api-key': ADMIN_KEY }, 'GET');
    expect([got.status, codeOf(got)]).toEqual([400, 'BAD_REQUEST']);
    // The admin key is presented as a client key is (x-api-key or Bearer), and is not one.
    expect((await purge(h, { tags: ['sites'] }, { 'x-api-key': ADMIN_KEY })).body).toEqual({ purged: 0 });
    expect((await post(h, SITES, { headers: { 'x-api-key': ADMIN_KEY } })).status).toBe(401);
  });

  it("drops a site's data and the answers that show it, and nothing else: the next request costs exactly that site's call", async () => {
    h = await startGateway({ env: { ADMIN_API_KEYS: ADMIN_KEY } });
    const [one, two] = h.mock.catalog.sites;
    const product = h.mock.catalog.products[0]!.goodsCode;
    const requests: Array<[string, Record<string, unknown> | undefined]> = [
      [SITE, { c: one!.code }], [SITE, { c: two!.code }], [PRODUCT, { g: product }], [SITES, undefined],
    ];
    for (const [query, variables] of requests) await post(h, query, { variables });
    const made = await post(h, SITE, { variables: { c: one!.code } });
    expect(made.headers.get('x-cache')).toBe('hit');

    // The site's answer, its detail entry (no list-with-points primed its city here) and the
    // page's answer, which shows the site and names it by its list.
    const answer = await purge(h, { tags: [`site:${one!.code}`] });
    expect([answer.status, answer.body]).toEqual([200, { purged: 3 }]);
    expect(answer.headers.get('cache-control')).toBe('no-store');

    h.mock.resetCounters();
    const again = await post(h, SITE, { variables: { c: one!.code } });
    expect(again.headers.get('x-cache')).toBe('miss');
    expect(again.text).toBe(made.text);
    expect(h.mock.callLog().filter((entry) => entry.path !== '/oauth/token').map((entry) => entry.path)).toEqual(['/api/site/detail']);
    // The page is made again from its page of the list, which a list tag drops (below).
    expect((await post(h, SITES)).headers.get('x-cache')).toBe('miss');
    for (const [query, variables] of requests.slice(1, 3)) expect((await post(h, query, { variables })).headers.get('x-cache')).toBe('hit');
    expect(h.mock.calls()).toBe(1);
  });

  it('finds an answer stored again after its first copy expired', async () => {
    h = await startGateway({ env: { ADMIN_API_KEYS: ADMIN_KEY, CACHE_TTL_SITES_S: '30' } });
    const site = h.mock.catalog.sites[0]!.code;
    await post(h, SITE, { variables: { c: site } });
    h.clock.advance(31_000);
    expect((await post(h, SITE, { variables: { c: site } })).headers.get('x-cache')).toBe('miss');
    expect((await post(h, SITE, { variables: { c: site } })).headers.get('x-cache')).toBe('hit');
    expect((await purge(h, { tags: [`site:${site}`] })).body).toEqual({ purged: 2 });
    expect((await post(h, SITE, { variables: { c: site } })).headers.get('x-cache')).toBe('miss');
  });

  it('drops a list: its pages are loaded again, its entities stay', async () => {
    h = await startGateway({ env: { ADMIN_API_KEYS: ADMIN_KEY } });
    const site = h.mock.catalog.sites[0]!.code;
    await post(h, SITES);
    await post(h, SITE, { variables: { c: site } });
    await purge(h, { tags: ['sites'] });
    h.mock.resetCounters();
    expect((await post(h, SITES)).headers.get('x-cache')).toBe('miss');
    expect(h.mock.calls()).toBe(1);
    expect((await post(h, SITE, { variables: { c: site } })).headers.get('x-cache')).toBe('hit');
    expect(h.mock.calls()).toBe(1);
  });

  it('drops a city: the city list is loaded again (cities are held as one map), a site answer stays', async () => {
    h = await startGateway({ env: { ADMIN_API_KEYS: ADMIN_KEY } });
    const site = h.mock.catalog.sites.find((candidate) => candidate.cityCode !== null)!;
    const CITY = `query City($c: String!) { city(code: $c) { code name } }`;
    const made = await post(h, CITY, { variables: { c: site.cityCode } });
    await post(h, SITE, { variables: { c: site.code } });
    expect((await post(h, CITY, { variables: { c: site.cityCode } })).headers.get('x-cache')).toBe('hit');
    expect((await purge(h, { tags: [`city:${site.cityCode}`] })).status).toBe(200);
    h.mock.resetCounters();
    const again = await post(h, CITY, { variables: { c: site.cityCode } });
    expect([again.headers.get('x-cache'), again.text]).toEqual(['miss', made.text]);
    expect(h.mock.callLog().filter((entry) => entry.path !== '/oauth/token').map((entry) => entry.path)).toEqual(['/api/city/list']);
    expect((await post(h, SITE, { variables: { c: site.code } })).headers.get('x-cache')).toBe('hit');
    expect(h.mock.calls()).toBe(1);
  });

  it('counts each purge and what it dropped, and logs who asked by fingerprint, never the key', async () => {
    h = await startGateway({ env: { ADMIN_API_KEYS: `${ADMIN_KEY},another-admin-key-0002` } });
    const product = h.mock.catalog.products[0]!.goodsCode;
    await post(h, PRODUCT, { variables: { g: product } });
    expect((await purge(h, { tags: [`product:${product}`, 'cities'] })).body).toEqual({ purged: 2 });
    await purge(h, { tags: [`product:${product}`] });
    const text = await scrape(h);
    expect(metric(text, 'gateway_purges_total', { origin: 'request' })).toBe(2);
    expect(metric(text, 'gateway_purged_entries_total', { cache: 'response' })).toBe(1);
    expect(metric(text, 'gateway_purged_entries_total', { cache: 'data' })).toBe(1);
    const lines = logEntries(h).filter((entry) => entry.msg === 'purge');
    expect(lines.map(({ admin, tags, purged }) => ({ tags, purged, admin: /^key:[0-9a-f]{12}$/.test(admin) }))).toEqual([
      { tags: [`product:${product}`, 'cities'], purged: 2, admin: true },
      { tags: [`product:${product}`], purged: 0, admin: true },
    ]);
    expect(h.logs.join('')).not.toContain(ADMIN_KEY);
  });
});
