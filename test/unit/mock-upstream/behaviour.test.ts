import { describe, expect, it } from 'vitest';
import { createMockUpstream } from '../../../src/mock-upstream/index.js';
import { api, resultOf, useMock, type Page, type Row } from './client.js';

describe('behaviour switches', () => {
  const mock = useMock();

  it('answers an unknown code with result null by default', async () => {
    const site = await api(mock(), '/api/site/detail', { query: { siteCode: 'S999999' } });
    expect(site.status).toBe(200);
    expect(site.json()).toEqual({ code: 0, msg: '', message: 'success', type: 'success', timestamp: expect.any(Number), result: null });
    const product = await api(mock(), '/api/product/detail', { query: { goodsCode: 'G99999' } });
    expect(product.json().result).toBeNull();
  });

  it('answers an unknown code with an empty result object when notFound is empty', async () => {
    mock().behaviour.notFound = 'empty';
    const site = await api(mock(), '/api/site/detail', { query: { siteCode: 'S999999' } });
    expect(site.json()).toMatchObject({ code: 0, result: {} });
    expect(site.json().result).toEqual({});
  });

  it('answers an unknown code with a 404 error envelope when notFound is error', async () => {
    mock().behaviour.notFound = 'error';
    const product = await api(mock(), '/api/product/detail', { query: { goodsCode: 'G99999' } });
    expect(product.status).toBe(200);
    expect(product.json()).toEqual({ code: 404, msg: 'data not found', timestamp: expect.any(Number) });
  });

  it('sends error envelopes with the HTTP status errorStatus', async () => {
    mock().behaviour.errorStatus = 503;
    mock().behaviour.notFound = 'error';
    expect((await api(mock(), '/api/site/detail')).status).toBe(503);
    expect((await api(mock(), '/api/site/detail', { query: { siteCode: 'nope' } })).status).toBe(503);
    expect((await api(mock(), '/api/site/detail', { query: { siteCode: 'S000001' } })).status).toBe(200);
  });

  it('serves declared numbers as strings when numbersAsStrings is on', async () => {
    mock().behaviour.numbersAsStrings = true;
    const city = (await resultOf<Page>(mock(), '/api/city/list')).items[0];
    expect(city?.id).toBe('310100');
    const product = (await resultOf<Page>(mock(), '/api/products/list')).items[0];
    const stored = mock().catalog.products[0];
    expect(product).toMatchObject({ ipId: String(stored?.ipId), costPrice: String(stored?.costPrice), guidePrice: String(stored?.guidePrice) });
    const plain = (await resultOf<Page>(mock(), '/api/site/list')).items[0];
    expect(plain).toMatchObject({ state: expect.any(String), gradeType: expect.any(String) });
    const site = (await resultOf<Page<{ state: unknown; points: { gradeType: unknown; cargolanes: Row[] }[] }>>(mock(), '/api/site/list-with-points')).items[0];
    expect(typeof site?.state).toBe('string');
    expect(typeof site?.points[0]?.gradeType).toBe('string');
    const lanes = site?.points.flatMap((p) => p.cargolanes) ?? [];
    expect(lanes.every((l) => typeof l.stock === 'string')).toBe(true);
    expect(lanes.filter((l) => l.goodsCode).every((l) => typeof l.guidePrice === 'string')).toBe(true);
  });

  it('keeps declared numbers as numbers by default', async () => {
    const product = (await resultOf<Page>(mock(), '/api/products/list')).items[0];
    expect(typeof product?.guidePrice).toBe('number');
    expect(typeof product?.ipId).toBe('number');
  });

  it('answers a path listed in missingPaths with a plain-text 404, and only that path', async () => {
    mock().behaviour.missingPaths.push('/api/site/list');
    const missing = await api(mock(), '/api/site/list');
    expect(missing.status).toBe(404);
    expect(missing.text).toBe('Not Found');
    expect((await api(mock(), '/api/sites/list')).status).toBe(200);
  });
});

describe('behaviour options', () => {
  it('applies the behaviour given at creation and keeps the other defaults', async () => {
    const mock = await createMockUpstream({ behaviour: { maxPageSize: 3, missingPaths: ['/api/sites/list'] } });
    try {
      expect(mock.behaviour).toEqual({
        errorStatus: 200, maxPageSize: 3, notFound: 'null', tokenStyle: 'plain', tokenExpiresIn: true,
        numbersAsStrings: false, missingPaths: ['/api/sites/list'],
      });
      expect((await resultOf<Page>(mock, '/api/city/list')).items).toHaveLength(3);
      expect((await api(mock, '/api/sites/list')).status).toBe(404);
    } finally {
      await mock.close();
    }
  });

  it('serves a catalog passed in, and generates one from catalog options', async () => {
    const mock = await createMockUpstream({ catalog: { sites: 7, products: 5, seed: 9 } });
    try {
      expect((await resultOf<Page>(mock, '/api/site/list')).total).toBe(7);
      const other = await createMockUpstream({ catalog: mock.catalog });
      try {
        expect(other.catalog).toBe(mock.catalog);
        expect((await resultOf<Page>(other, '/api/products/list')).total).toBe(5);
      } finally {
        await other.close();
      }
    } finally {
      await mock.close();
    }
  });
});
