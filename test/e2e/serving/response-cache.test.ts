import { afterEach, describe, expect, it } from 'vitest';
import { startGateway, type Harness } from '../../helpers/gateway.js';

const SITE = `query Site($c: String!) { site(code: $c) { code points { cargoLanes { stock } } } }`;
const PRODUCT = `query Product($g: String!) { product(goodsCode: $g) { goodsCode productName } }`;

async function post(h: Harness, query: string, variables: Record<string, unknown>, headers: Record<string, string> = {}) {
  const response = await fetch(`${h.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query, variables }),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

describe('the response cache', () => {
  let h: Harness;
  afterEach(() => h.close());

  it('answers an identical request, however it is laid out, with the same bytes and no execution', async () => {
    h = await startGateway();
    const site = h.mock.catalog.sites[0]!.code;
    const first = await post(h, SITE, { c: site });
    const calls = h.mock.calls();
    const second = await post(h, SITE.replace(/ /g, '\n  '), { c: site });
    expect(first.headers.get('x-cache')).toBe('miss');
    expect(second.headers.get('x-cache')).toBe('hit');
    expect(second.text).toBe(first.text);
    expect(second.headers.get('etag')).toBe(first.headers.get('etag'));
    expect(h.mock.calls()).toBe(calls);
    const other = await post(h, SITE, { c: h.mock.catalog.sites[1]!.code });
    expect(other.headers.get('x-cache')).toBe('miss');
  });

  it('keeps an answer until the first of its data stops being fresh', async () => {
    h = await startGateway({ env: { CACHE_TTL_SITES_S: '30', CACHE_TTL_PRODUCTS_S: '600' } });
    const site = h.mock.catalog.sites[0]!;
    const product = h.mock.catalog.products[0]!.goodsCode;
    await post(h, SITE, { c: site.code });
    await post(h, PRODUCT, { g: product });
    h.mock.setStock(site.code, site.points[0]!.code, 0, 99);

    h.clock.advance(29_000);
    expect((await post(h, SITE, { c: site.code })).headers.get('x-cache')).toBe('hit');
    h.clock.advance(2_000);
    const fresh = await post(h, SITE, { c: site.code });
    expect(fresh.headers.get('x-cache')).toBe('miss');
    expect(JSON.parse(fresh.text).data.site.points[0].cargoLanes[0].stock).toBe(99);
    expect((await post(h, PRODUCT, { g: product })).headers.get('x-cache')).toBe('hit');
  });

  it('never stores an answer with errors or with stale data', async () => {
    h = await startGateway({ env: { UPSTREAM_RETRIES: '0', CACHE_TTL_PRODUCTS_S: '60' } });
    const [a, b] = h.mock.catalog.products.map((p) => p.goodsCode);
    h.mock.fault('/api/product/detail', 'http503', { times: 1 });
    await post(h, PRODUCT, { g: a });
    const retried = await post(h, PRODUCT, { g: a });
    expect(JSON.parse(retried.text).errors).toBeUndefined();
    expect(retried.headers.get('x-cache')).toBe('miss');

    await post(h, PRODUCT, { g: b });
    h.clock.advance(61_000);
    h.mock.fault('/api/product/detail', 'http503');
    const stale = await post(h, PRODUCT, { g: b });
    expect(JSON.parse(stale.text).extensions.stale).toHaveLength(1);
    const again = await post(h, PRODUCT, { g: b });
    expect(again.headers.get('x-cache')).toBe('miss');
  });

  it('answers a GET with a matching If-None-Match with 304', async () => {
    h = await startGateway();
    const url = `${h.url}/graphql?query=${encodeURIComponent(PRODUCT)}&variables=${encodeURIComponent('{"g":"G00001"}')}`;
    const first = await fetch(url);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^".+"$/);
    const revalidated = await fetch(url, { headers: { 'if-none-match': etag } });
    expect(revalidated.status).toBe(304);
    const changed = await fetch(url, { headers: { 'if-none-match': '"something-else"' } });
    expect(changed.status).toBe(200);
    // RFC 9110: If-None-Match compares weakly, and may list several tags or say `*`.
    for (const header of [`W/${etag}`, `"other", ${etag}`, `"other",W/${etag}`, '*']) {
      expect((await fetch(url, { headers: { 'if-none-match': header } })).status, header).toBe(304);
    }
  });

  it('still asks for an API key before answering from the cache', async () => {
    const key = 'response-cache-test-key-01';
    h = await startGateway({ env: { GATEWAY_API_KEYS: key } });
    const ok = await post(h, PRODUCT, { g: 'G00001' }, { 'x-api-key': key });
    expect(ok.status).toBe(200);
    const anonymous = await post(h, PRODUCT, { g: 'G00001' });
    expect(anonymous.status).toBe(401);
    expect((await post(h, PRODUCT, { g: 'G00001' }, { 'x-api-key': key })).headers.get('x-cache')).toBe('hit');
  });
});
