import { parse } from 'graphql';
import { afterEach, describe, expect, it } from 'vitest';
import { createUnstorableDocuments, keyedNow, learntOf, REPROBE_EVERY, STREAK } from '../../../src/response-cache/unstorable.js';
import { startGateway, type Harness } from '../../helpers/gateway.js';

const NEAR = 'query Near($lat: Float!, $lng: Float!) { sitesNear(lat: $lat, lng: $lng, radiusKm: 50) { distanceKm site { code } } }';
const PRODUCT = 'query Product($g: String!) { product(goodsCode: $g) { goodsCode productName } }';

describe('documents whose answers are never stored', () => {
  it('stop being keyed after a streak of declined answers, but for one request in REPROBE_EVERY, which puts them on probation', () => {
    const documents = createUnstorableDocuments();
    const document = parse('{ a }');
    for (let i = 0; i < STREAK; i += 1) {
      expect(documents.worthKeying(document)).toBe(true);
      documents.offered(document, false);
    }
    const unkeyed = Array.from({ length: REPROBE_EVERY }, () => documents.worthKeying(document));
    expect(unkeyed.filter(Boolean)).toHaveLength(1);
    expect(unkeyed[REPROBE_EVERY - 1]).toBe(true);
    // The re-probe's answer declined again: one request in REPROBE_EVERY, as before.
    documents.offered(document, false);
    const again = Array.from({ length: REPROBE_EVERY }, () => documents.worthKeying(document));
    expect(again.filter(Boolean)).toHaveLength(1);
    // The re-probe hit (nothing offered): keyed from then on, until an answer is declined.
    expect(Array.from({ length: 2 * REPROBE_EVERY }, () => documents.worthKeying(document)).every(Boolean)).toBe(true);
    documents.offered(document, false);
    expect(documents.worthKeying(document)).toBe(false);
    expect(documents.worthKeying(parse('{ a }'))).toBe(true);
  });

  it('forget their streak when an answer is stored, and tell whoever kept what was learnt', () => {
    const documents = createUnstorableDocuments();
    const document = parse('{ a }');
    const learnt = learntOf(document);
    for (let i = 0; i < STREAK; i += 1) documents.offered(document, false);
    expect(keyedNow(learnt)).toBe(false);
    for (let i = 1; i < REPROBE_EVERY; i += 1) expect(documents.worthKeying(document)).toBe(false);
    expect(documents.worthKeying(document)).toBe(true);
    documents.offered(document, true);
    expect(keyedNow(learnt)).toBe(true);
    for (let i = 0; i < STREAK - 1; i += 1) documents.offered(document, false);
    expect(keyedNow(learnt)).toBe(true);
  });

  describe('over HTTP', () => {
    let h: Harness;
    afterEach(() => h.close());

    async function post(query: string, variables: Record<string, unknown>) {
      const response = await fetch(`${h.url}/graphql`, {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }),
      });
      const body = await response.json() as { errors?: unknown; extensions?: { dataAge?: number } };
      expect(body.errors).toBeUndefined();
      return { cache: response.headers.get('x-cache'), dataAge: body.extensions?.dataAge };
    }

    it('sitesNear (its answers state their data age) is looked up STREAK times, then answered without a key; other documents are still stored', async () => {
      h = await startGateway();
      const sites = h.mock.catalog.sites;
      const answers = [];
      for (let i = 0; i < STREAK + 4; i += 1) answers.push(await post(NEAR, { lat: sites[i]!.lat, lng: sites[i]!.lng }));
      expect(answers.map((answer) => answer.cache)).toEqual([...Array(STREAK).fill('miss'), ...Array(4).fill(null)]);
      expect(answers.every((answer) => typeof answer.dataAge === 'number')).toBe(true);
      const goodsCode = h.mock.catalog.products[0]!.goodsCode;
      expect((await post(PRODUCT, { g: goodsCode })).cache).toBe('miss');
      expect((await post(PRODUCT, { g: goodsCode })).cache).toBe('hit');
    });
  });
});

const CITIES = 'query Cities($size: Int!) { cities(pageSize: $size) { items { code } } }';
const OPEN = 'query Open($c: String!, $open: Boolean!) { site(code: $c) { code isOpen @include(if: $open) } }';

describe('one document asked by many clients', () => {
  let h: Harness;
  afterEach(() => h.close());

  async function ask(method: 'GET' | 'POST', query: string, variables: Record<string, unknown>, ifNoneMatch?: string) {
    const headers: Record<string, string> = ifNoneMatch === undefined ? {} : { 'if-none-match': ifNoneMatch };
    const response = method === 'GET'
      ? await fetch(`${h.url}/graphql?query=${encodeURIComponent(query)}&variables=${encodeURIComponent(JSON.stringify(variables))}`, { headers })
      : await fetch(`${h.url}/graphql`, { method, headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) });
    const text = await response.text();
    const body = text === '' ? {} : JSON.parse(text) as { errors?: Array<{ extensions?: { code?: string } }> };
    return { status: response.status, cache: response.headers.get('x-cache'), etag: response.headers.get('etag'), codes: body.errors?.map((error) => error.extensions?.code) ?? [] };
  }

  it.each(['GET', 'POST'] as const)('is still answered from the cache, with its ETag, after STREAK requests with a bad variable (%s)', async (method) => {
    h = await startGateway();
    expect(await ask(method, CITIES, { size: 2 })).toMatchObject({ status: 200, cache: 'miss', codes: [] });
    const stored = await ask(method, CITIES, { size: 2 });
    expect(stored).toMatchObject({ status: 200, cache: 'hit', codes: [] });
    const calls = h.mock.calls();
    for (let i = 0; i < STREAK; i += 1) expect((await ask(method, CITIES, { size: 1000 })).codes).toEqual(['BAD_USER_INPUT']);
    const after = [];
    for (let i = 0; i < 2 * STREAK; i += 1) after.push(await ask(method, CITIES, { size: 2 }));
    expect(after.map((answer) => [answer.cache, answer.etag])).toEqual(Array(2 * STREAK).fill(['hit', stored.etag]));
    if (method === 'GET') expect((await ask(method, CITIES, { size: 2 }, stored.etag!)).status).toBe(304);
    expect(h.mock.calls()).toBe(calls);
  });

  it.each(['GET', 'POST'] as const)('is keyed again for good when the re-probe after STREAK unstorable answers hits (%s)', async (method) => {
    h = await startGateway();
    const code = h.mock.catalog.sites[0]!.code;
    expect((await ask(method, OPEN, { c: code, open: false })).cache).toBe('miss');
    expect((await ask(method, OPEN, { c: code, open: false })).cache).toBe('hit');
    // Whole answers made of the time now: the document's own, they count.
    for (let i = 0; i < STREAK; i += 1) expect(await ask(method, OPEN, { c: code, open: true })).toMatchObject({ cache: 'miss', codes: [] });
    const caches = [];
    for (let i = 0; i < REPROBE_EVERY + STREAK; i += 1) caches.push((await ask(method, OPEN, { c: code, open: false })).cache);
    expect(caches).toEqual([...Array(REPROBE_EVERY - 1).fill(null), ...Array(STREAK + 1).fill('hit')]);
  });
});
