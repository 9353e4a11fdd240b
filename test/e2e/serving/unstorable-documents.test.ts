import { parse } from 'graphql';
import { afterEach, describe, expect, it } from 'vitest';
import { createUnstorableDocuments, REPROBE_EVERY, STREAK } from '../../../src/response-cache/unstorable.js';
import { startGateway, type Harness } from '../../helpers/gateway.js';

const NEAR = 'query Near($lat: Float!, $lng: Float!) { sitesNear(lat: $lat, lng: $lng, radiusKm: 50) { distanceKm site { code } } }';
const PRODUCT = 'query Product($g: String!) { product(goodsCode: $g) { goodsCode productName } }';

describe('documents whose answers are never stored', () => {
  it('stop being keyed after a streak of declined answers, but for one request in REPROBE_EVERY', () => {
    const documents = createUnstorableDocuments();
    const document = parse('{ a }');
    for (let i = 0; i < STREAK; i += 1) {
      expect(documents.worthKeying(document)).toBe(true);
      documents.offered(document, false);
    }
    const keyed = Array.from({ length: 2 * REPROBE_EVERY }, () => documents.worthKeying(document));
    expect(keyed.filter(Boolean)).toHaveLength(2);
    expect(keyed[REPROBE_EVERY - 1]).toBe(true);
    documents.offered(document, true);
    expect(Array.from({ length: 2 * REPROBE_EVERY }, () => documents.worthKeying(document)).every(Boolean)).toBe(true);
    expect(documents.worthKeying(parse('{ a }'))).toBe(true);
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
