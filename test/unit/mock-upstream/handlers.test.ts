import { describe, expect, it } from 'vitest';
import { productPicOf, type MockSite } from '../../../src/mock-upstream/index.js';
import { api, fetchToken, resultOf, useMock, type Page, type Row } from './client.js';

const PLAIN_SITE_FIELDS = [
  'code', 'name', 'state', 'openTime', 'closeTime', 'address', 'addressExt', 'lng', 'lat', 'imgs', 'siteType', 'gradeType',
];
const DETAIL_FIELDS = [
  'code', 'name', 'state', 'openTime', 'closeTime', 'address', 'addressExt', 'lng', 'lat', 'imgs', 'siteType', 'points',
];

describe('the seven operations', () => {
  const mock = useMock();

  // A site with an empty lane and at least one full one, so lane shapes can be checked.
  const siteWithEmptyLane = (): MockSite => {
    const site = mock().catalog.sites.find((s) => s.points.some((p) => p.cargolanes.some((l) => !l.goodsCode)));
    if (!site) throw new Error('the default catalog should have an empty lane');
    return site;
  };

  it('answers with the success envelope', async () => {
    const answer = await api(mock(), '/api/city/list');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    const envelope = answer.json();
    expect(envelope).toEqual({ code: 0, msg: '', message: 'success', type: 'success', timestamp: expect.any(Number), result: expect.any(Object) });
    expect(Math.abs(envelope.timestamp - Date.now() / 1000)).toBeLessThan(5);
  });

  it('lists cities with id, name and code', async () => {
    const page = await resultOf<Page>(mock(), '/api/city/list');
    expect(page.total).toBe(12);
    expect(page.items[0]).toEqual({ id: 310100, name: '上海', code: 'SH' });
  });

  it('lists plain sites with coordinates as decimal strings and no city or points', async () => {
    const page = await resultOf<Page>(mock(), '/api/site/list', { query: { pageSize: 50 } });
    const stored = mock().catalog.sites[0];
    const item = page.items[0];
    expect(Object.keys(item ?? {}).sort()).toEqual([...PLAIN_SITE_FIELDS].sort());
    expect(item).toMatchObject({ code: stored?.code, lng: stored?.lng.toFixed(6), lat: stored?.lat.toFixed(6), gradeType: stored?.gradeType });
    for (const site of page.items) {
      expect(site.lng).toMatch(/^\d+\.\d{6}$/);
      expect(typeof site.address).toBe('string');
      expect(typeof site.addressExt).toBe('string');
      expect(Array.isArray(site.imgs)).toBe(true);
    }
  });

  it('answers /api/sites/list exactly like /api/site/list', async () => {
    const token = await fetchToken(mock());
    const a = await resultOf<Page>(mock(), '/api/site/list', { token, query: { page: 2, pageSize: 7 } });
    const b = await resultOf<Page>(mock(), '/api/sites/list', { token, query: { page: 2, pageSize: 7 } });
    expect(b).toEqual(a);
  });

  it('lists sites with points, city code and name, and lane prices taken from the product', async () => {
    const page = await resultOf<Page>(mock(), '/api/site/list-with-points', { query: { pageSize: 50 } });
    const stored = mock().catalog.sites[0];
    const item = page.items[0] as Row & { points: { cargolanes: Row[] }[] };
    const city = mock().catalog.cities.find((c) => c.code === stored?.cityCode);
    expect(item).toMatchObject({ code: stored?.code, cityCode: stored?.cityCode, cityName: city?.name, lng: stored?.lng.toFixed(6) });
    expect(item).not.toHaveProperty('gradeType');
    const laneIndex = stored?.points[0]?.cargolanes.findIndex((l) => l.goodsCode) ?? -1;
    const storedLane = stored?.points[0]?.cargolanes[laneIndex];
    const product = mock().catalog.products.find((p) => p.goodsCode === storedLane?.goodsCode);
    if (!product) throw new Error('the first point should hold a product');
    expect(item.points[0]?.cargolanes[laneIndex]).toEqual({
      goodsCode: product.goodsCode, productName: product.productName, productPic: productPicOf(product),
      stock: storedLane?.stock, guidePrice: product.guidePrice,
    });
  });

  it('gets one site with points but without city fields or lane prices', async () => {
    const stored = siteWithEmptyLane();
    const site = await resultOf<Row & { points: Row[] }>(mock(), '/api/site/detail', { query: { siteCode: stored.code } });
    expect(Object.keys(site).sort()).toEqual([...DETAIL_FIELDS].sort());
    expect(site.points.map((p) => p.code)).toEqual(stored.points.map((p) => p.code));
    expect(Object.keys(site.points[0] ?? {}).sort()).toEqual(['cargolanes', 'code', 'gradeType', 'imei', 'name']);
    const lanes = site.points.flatMap((p) => p.cargolanes as Row[]);
    expect(lanes.some((l) => 'guidePrice' in l)).toBe(false);
    expect(lanes.filter((l) => 'goodsCode' in l).every((l) => Object.keys(l).length === 4)).toBe(true);
  });

  it('serves an empty lane with its stock only, in detail and in list-with-points', async () => {
    const stored = siteWithEmptyLane();
    const index = mock().catalog.sites.indexOf(stored);
    const detail = await resultOf<{ points: { cargolanes: Row[] }[] }>(mock(), '/api/site/detail', { query: { siteCode: stored.code } });
    const listed = await resultOf<Page<{ points: { cargolanes: Row[] }[] }>>(mock(), '/api/site/list-with-points', { query: { page: index + 1, pageSize: 1 } });
    for (const site of [detail, listed.items[0]]) {
      const lanes = site?.points.flatMap((p) => p.cargolanes) ?? [];
      expect(lanes).toContainEqual({ stock: 0 });
    }
  });

  it('lists products and gets one by goods code', async () => {
    const page = await resultOf<Page>(mock(), '/api/products/list');
    const stored = mock().catalog.products[3];
    expect(page.total).toBe(80);
    expect(page.items[0]).toEqual(mock().catalog.products[0]);
    const product = await resultOf<Row>(mock(), '/api/product/detail', { query: { goodsCode: stored?.goodsCode ?? '' } });
    expect(product).toEqual(stored);
  });

  it('shows a product change everywhere the product appears', async () => {
    const stored = mock().catalog.sites[0];
    const goodsCode = stored?.points[0]?.cargolanes.find((l) => l.goodsCode)?.goodsCode;
    const product = mock().catalog.products.find((p) => p.goodsCode === goodsCode);
    if (!product || !stored) throw new Error('the first site should hold a product');
    product.productName = '改名后的商品';
    product.guidePrice = 4242;
    const listed = await resultOf<Page<{ points: { cargolanes: Row[] }[] }>>(mock(), '/api/site/list-with-points', { query: { pageSize: 1 } });
    const lane = listed.items[0]?.points.flatMap((p) => p.cargolanes).find((l) => l.goodsCode === goodsCode);
    expect(lane).toMatchObject({ productName: '改名后的商品', guidePrice: 4242 });
  });

  it('refuses a detail call without its required parameter', async () => {
    const site = await api(mock(), '/api/site/detail');
    expect(site.status).toBe(200);
    expect(site.json()).toEqual({ code: 400, msg: 'siteCode is required', timestamp: expect.any(Number) });
    const product = await api(mock(), '/api/product/detail', { query: { goodsCode: '' } });
    expect(product.json()).toEqual({ code: 400, msg: 'goodsCode is required', timestamp: expect.any(Number) });
  });

  it('answers an unknown path with a plain-text 404 and a non-GET call with 405', async () => {
    const unknown = await api(mock(), '/api/site/lists');
    expect(unknown.status).toBe(404);
    expect(unknown.text).toBe('Not Found');
    const post = await api(mock(), '/api/city/list', { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET');
  });
});

describe('pagination', () => {
  const mock = useMock();

  it('defaults to page 1 with 10 records and reports the total of all records', async () => {
    const page = await resultOf<Page>(mock(), '/api/site/list');
    expect(page.items.map((s) => s.code)).toEqual(mock().catalog.sites.slice(0, 10).map((s) => s.code));
    expect(page.total).toBe(60);
  });

  it('returns the requested page in catalog order', async () => {
    const page = await resultOf<Page>(mock(), '/api/products/list', { query: { page: 3, pageSize: 7 } });
    expect(page.items.map((p) => p.goodsCode)).toEqual(mock().catalog.products.slice(14, 21).map((p) => p.goodsCode));
  });

  it('returns a short last page and an empty page past the end', async () => {
    const last = await resultOf<Page>(mock(), '/api/site/list', { query: { page: 4, pageSize: 16 } });
    expect(last.items).toHaveLength(12);
    const past = await resultOf<Page>(mock(), '/api/site/list', { query: { page: 99, pageSize: 16 } });
    expect(past).toEqual({ items: [], total: 60 });
  });

  it('silently caps pageSize at maxPageSize, offsetting by the capped size', async () => {
    const capped = await resultOf<Page>(mock(), '/api/site/list', { query: { pageSize: 1000 } });
    expect(capped.items).toHaveLength(50);
    expect(capped.total).toBe(60);
    mock().behaviour.maxPageSize = 5;
    const second = await resultOf<Page>(mock(), '/api/site/list', { query: { page: 2, pageSize: 20 } });
    expect(second.items.map((s) => s.code)).toEqual(mock().catalog.sites.slice(5, 10).map((s) => s.code));
  });

  it('falls back to the defaults for a non-numeric or non-positive page or pageSize', async () => {
    const firstTen = mock().catalog.sites.slice(0, 10).map((s) => s.code);
    for (const query of [{ page: 'abc', pageSize: 'x' }, { page: 0, pageSize: 0 }, { page: -2, pageSize: -5 }, { page: '1.5', pageSize: '2e1' }]) {
      const page = await resultOf<Page>(mock(), '/api/site/list', { query });
      expect(page.items.map((s) => s.code)).toEqual(firstTen);
    }
  });
});
