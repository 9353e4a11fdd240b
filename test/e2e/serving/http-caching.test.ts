import { afterEach, describe, expect, it } from 'vitest';
import { startGateway, type Harness } from '../../helpers/gateway.js';

const CITIES = `query Cities { cities(pageSize: 2) { items { code } } }`;
const PRODUCT = `query Product($g: String!) { product(goodsCode: $g) { goodsCode productName } }`;
const KEY = 'http-caching-test-key-0001';

/** A GET of `query` with `variables`, as a CDN would see it. */
function getUrl(h: Harness, query: string, variables?: Record<string, unknown>): string {
  const params = new URLSearchParams({ query, ...(variables && { variables: JSON.stringify(variables) }) });
  return `${h.url}/graphql?${params}`;
}

async function get(url: string, headers: Record<string, string> = {}) {
  const response = await fetch(url, { headers: { accept: 'application/json', ...headers } });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

async function post(h: Harness, query: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${h.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query }),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

describe('HTTP caching headers', () => {
  let h: Harness;
  afterEach(() => h.close());

  it('marks a GET answer public for the seconds its data stays fresh, with its Age once served from the response cache', async () => {
    h = await startGateway({ env: { CACHE_TTL_CITIES_S: '120' } });
    const url = getUrl(h, CITIES);
    const first = await get(url);
    expect(first.status).toBe(200);
    expect(first.headers.get('cache-control')).toBe('public, max-age=120');
    expect(first.headers.get('age')).toBeNull();
    expect(first.headers.get('etag')).toMatch(/^".+"$/);
    // CORS is on by default outside production: its headers echo the Origin.
    expect(first.headers.get('vary')).toBe('Accept, Origin');

    h.clock.advance(30_500);
    const stored = await get(url);
    expect(stored.headers.get('x-cache')).toBe('hit');
    expect(stored.headers.get('cache-control')).toBe('public, max-age=89');
    expect(stored.headers.get('age')).toBe('30');
    expect(stored.headers.get('etag')).toBe(first.headers.get('etag'));

    const revalidated = await get(url, { 'if-none-match': first.headers.get('etag')! });
    expect(revalidated.status).toBe(304);
    expect(revalidated.headers.get('cache-control')).toBe('public, max-age=89');
    expect(revalidated.headers.get('age')).toBe('30');
    expect(revalidated.headers.get('vary')).toBe('Accept, Origin');
  });

  it('takes max-age from the data cache when the response cache is off', async () => {
    h = await startGateway({ env: { CACHE_TTL_CITIES_S: '120', RESPONSE_CACHE_MAX_BYTES: '0' } });
    const url = getUrl(h, CITIES);
    expect((await get(url)).headers.get('cache-control')).toBe('public, max-age=120');
    h.clock.advance(100_000);
    const later = await get(url);
    expect(later.headers.get('cache-control')).toBe('public, max-age=20');
    expect(later.headers.get('age')).toBeNull();
    expect(later.headers.get('x-cache')).toBeNull();
  });

  it('gives no-store to a POST, to an answer with errors and to one with stale data', async () => {
    h = await startGateway({ env: { UPSTREAM_RETRIES: '0', CACHE_TTL_PRODUCTS_S: '60' } });
    expect((await post(h, CITIES)).headers.get('cache-control')).toBe('no-store');

    const [a, b] = h.mock.catalog.products.map((p) => p.goodsCode);
    h.mock.fault('/api/product/detail', 'http503', { times: 1 });
    const failed = await get(getUrl(h, PRODUCT, { g: a }));
    expect(JSON.parse(failed.text).errors).toBeDefined();
    expect(failed.headers.get('cache-control')).toBe('no-store');
    expect(JSON.parse((await get(getUrl(h, `{ nope }`))).text).errors).toBeDefined();
    expect((await get(getUrl(h, `{ nope }`))).headers.get('cache-control')).toBe('no-store');

    await get(getUrl(h, PRODUCT, { g: b }));
    h.clock.advance(61_000);
    h.mock.fault('/api/product/detail', 'http503');
    const stale = await get(getUrl(h, PRODUCT, { g: b }));
    expect(JSON.parse(stale.text).extensions.stale).toHaveLength(1);
    expect(stale.headers.get('cache-control')).toBe('no-store');
  });

  it('gives no-store to answers made of the time now or stating the catalog index data age', async () => {
    h = await startGateway();
    const site = h.mock.catalog.sites[0]!.code;
    const openNow = await get(getUrl(h, `{ site(code: "${site}") { isOpen } }`));
    expect(JSON.parse(openNow.text).errors).toBeUndefined();
    expect(openNow.headers.get('cache-control')).toBe('no-store');
    const openAt = await get(getUrl(h, `{ site(code: "${site}") { isOpen(at: "12:00") } }`));
    expect(openAt.headers.get('cache-control')).toMatch(/^public, max-age=\d+$/);

    const goodsCode = h.mock.catalog.products[0]!.goodsCode;
    const indexed = await get(getUrl(h, `{ product(goodsCode: "${goodsCode}") { totalStock } }`));
    expect(JSON.parse(indexed.text).extensions.dataAge).toBe(0);
    expect(indexed.headers.get('cache-control')).toBe('no-store');
  });

  it('gives no-store to answers in parts (@defer, SSE) and to any that is not one whole JSON answer of one unambiguous operation', async () => {
    h = await startGateway();
    const events = await fetch(getUrl(h, CITIES), { headers: { accept: 'text/event-stream' } });
    expect(events.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(await events.text()).toContain('"cities"');
    expect(events.headers.get('cache-control')).toBe('no-store');

    const deferred = await fetch(getUrl(h, `{ cities(pageSize: 2) { total ... @defer { items { code } } } }`), {
      headers: { accept: 'multipart/mixed' },
    });
    expect(deferred.headers.get('content-type')).toMatch(/^multipart\/mixed/);
    expect(await deferred.text()).toContain('"hasNext":false');
    expect(deferred.headers.get('cache-control')).toBe('no-store');

    const twice = await get(`${getUrl(h, CITIES)}&query=${encodeURIComponent('{ __typename }')}`);
    expect(twice.headers.get('cache-control')).toBe('no-store');
    const introspection = await get(getUrl(h, `{ __typename }`));
    expect(introspection.headers.get('cache-control')).toBe('no-store');
  });

  it('marks answers private, varying on the key headers, when API keys are set, and refusals no-store', async () => {
    h = await startGateway({ env: { GATEWAY_API_KEYS: KEY, CACHE_TTL_CITIES_S: '120', RATE_LIMIT_PER_MINUTE: '1' } });
    const url = getUrl(h, CITIES);
    const ok = await get(url, { 'x-api-key': KEY });
    expect(ok.headers.get('cache-control')).toBe('private, max-age=120');
    expect(ok.headers.get('vary')).toBe('Accept, Authorization, x-api-key, Origin');

    const anonymous = await get(url);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('cache-control')).toBe('no-store');
    const limited = await get(url, { 'x-api-key': KEY });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('cache-control')).toBe('no-store');
  });

  it('gives no-store to a body or query too large and to an unreadable body', async () => {
    h = await startGateway({ env: { MAX_REQUEST_BODY_BYTES: '4096', MAX_QUERY_BYTES: '1024' } });
    const large = await post(h, `{ cities { total } } #${'x'.repeat(8192)}`);
    expect(large.status).toBe(413);
    expect(large.headers.get('cache-control')).toBe('no-store');
    const longQuery = await get(getUrl(h, `{ cities { total } } #${'x'.repeat(2048)}`));
    expect(longQuery.status).toBe(413);
    expect(longQuery.headers.get('cache-control')).toBe('no-store');
    const unreadable = await fetch(`${h.url}/graphql`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' });
    expect(unreadable.status).toBe(415);
    expect(unreadable.headers.get('cache-control')).toBe('no-store');
  });
});
