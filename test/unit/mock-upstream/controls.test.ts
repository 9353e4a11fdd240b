import { describe, expect, it, vi } from 'vitest';
import { createMockUpstream } from '../../../src/mock-upstream/index.js';
import { api, apiUrl, fetchToken, resultOf, useMock, type Page, type Row } from './client.js';

/** vi.waitFor's bound: generous, since a busy machine is slow, not wrong (its default is 1 s). */
const WAIT = { timeout: 10_000 };

interface LaneRow { stock: unknown }
interface SiteRow { points: { code: string; cargolanes: LaneRow[] }[] }

describe('control surface', () => {
  const mock = useMock();

  it('exposes its addresses and credentials', () => {
    expect(mock().url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(mock().tokenUrl).toBe(`${mock().url}/oauth/token`);
    expect(mock().clientId).toBe('demo-client');
    expect(mock().clientSecret).toBe('demo-secret');
  });

  it('counts calls per path, token endpoint apart, failed and faulted calls included', async () => {
    const token = await fetchToken(mock());
    await api(mock(), '/api/city/list', { token });
    await api(mock(), '/api/city/list', { token: 'bad' });
    mock().fault('/api/site/list', 'http503');
    await api(mock(), '/api/site/list', { token });
    await api(mock(), '/api/unknown', { token });
    expect(mock().calls('/oauth/token')).toBe(1);
    expect(mock().calls('/api/city/list')).toBe(2);
    expect(mock().calls('/api/site/list')).toBe(1);
    expect(mock().calls('/api/products/list')).toBe(0);
    expect(mock().calls()).toBe(4);
  });

  it('records the highest number of concurrent requests, per path and across API paths', async () => {
    const token = await fetchToken(mock());
    // 1 s: all five arrive before the first answers, even on a busy machine.
    mock().setLatency(1000);
    await Promise.all([
      ...Array.from({ length: 4 }, () => api(mock(), '/api/city/list', { token })),
      api(mock(), '/api/products/list', { token }),
    ]);
    mock().setLatency(0);
    await api(mock(), '/api/city/list', { token });
    expect(mock().maxInFlight('/api/city/list')).toBe(4);
    expect(mock().maxInFlight('/api/products/list')).toBe(1);
    expect(mock().maxInFlight()).toBe(5);
    expect(mock().maxInFlight('/oauth/token')).toBe(1);
  });

  it('delays every answer, the token endpoint included, by the latency', async () => {
    mock().setLatency(200);
    const started = Date.now();
    await api(mock(), '/api/city/list');
    expect(Date.now() - started).toBeGreaterThanOrEqual(390);
    expect(() => mock().setLatency(-1)).toThrow(/but got: -1/);
  });

  it('logs every request in order with its query and Authorization header, the token never in a query', async () => {
    const token = await fetchToken(mock());
    await api(mock(), '/api/site/detail', { token, query: { siteCode: 'S000002' } });
    const log = mock().callLog();
    expect(log.map((e) => e.path)).toEqual(['/oauth/token', '/api/site/detail']);
    expect(log[1]).toEqual({ path: '/api/site/detail', query: { siteCode: 'S000002' }, authorization: `Bearer ${token}`, at: expect.any(Number) });
    expect(log[0]?.authorization).toMatch(/^Basic /);
    expect(log.every((e) => !Object.values(e.query).some((v) => v.includes(token)))).toBe(true);
  });

  it('counts the token timeouts it sends, from expired tokens and from the fault', async () => {
    const token = await fetchToken(mock());
    mock().fault('/api/city/list', 'token-timeout', { times: 1 });
    await api(mock(), '/api/city/list', { token });
    mock().expireAllTokens();
    await api(mock(), '/api/city/list', { token });
    await api(mock(), '/api/site/list', { token });
    expect(mock().tokenTimeoutsSent()).toBe(3);
  });

  it('zeroes calls, maxInFlight, tokenTimeoutsSent and the call log on resetCounters', async () => {
    mock().setTokenLifetime(0);
    await api(mock(), '/api/city/list');
    mock().resetCounters();
    expect(mock().calls()).toBe(0);
    expect(mock().calls('/oauth/token')).toBe(0);
    expect(mock().maxInFlight()).toBe(0);
    expect(mock().maxInFlight('/api/city/list')).toBe(0);
    expect(mock().tokenTimeoutsSent()).toBe(0);
    expect(mock().callLog()).toEqual([]);
    expect(mock().issuedTokens()).toHaveLength(1);
  });

  it('shows a stock change in detail and in list-with-points', async () => {
    const token = await fetchToken(mock());
    const site = mock().catalog.sites[1];
    const point = site?.points[2];
    if (!site || !point) throw new Error('catalog too small');
    mock().setStock(site.code, point.code, 4, 17);
    mock().setStock(site.code, point.code, 5, 0);
    const detail = await resultOf<SiteRow>(mock(), '/api/site/detail', { token, query: { siteCode: site.code } });
    const listed = await resultOf<Page<SiteRow>>(mock(), '/api/site/list-with-points', { token, query: { page: 2, pageSize: 1 } });
    for (const served of [detail, listed.items[0]]) {
      const lanes = served?.points.find((p) => p.code === point.code)?.cargolanes;
      expect(lanes?.[4]?.stock).toBe(17);
      expect(lanes?.[5]?.stock).toBe(0);
    }
    expect(point.cargolanes[4]?.stock).toBe(17);
  });

  it('refuses setStock for a lane that does not exist, saying which part is missing', () => {
    const site = mock().catalog.sites[0];
    const point = site?.points[0];
    if (!site || !point) throw new Error('catalog too small');
    expect(() => mock().setStock('S999999', point.code, 0, 1)).toThrow(/no site with code "S999999"/);
    expect(() => mock().setStock(site.code, 'P0', 0, 1)).toThrow(/has no point "P0"/);
    expect(() => mock().setStock(site.code, point.code, 99, 1)).toThrow(/has no lane 99/);
    expect(() => mock().setStock(site.code, point.code, 0, -3)).toThrow(/but got: -3/);
  });

  it('serves catalog mutations made directly by a test', async () => {
    const city = mock().catalog.cities[0];
    if (!city) throw new Error('no city');
    city.name = '魔都';
    const page = await resultOf<Page<Row>>(mock(), '/api/city/list');
    expect(page.items[0]?.name).toBe('魔都');
  });

  it('serves a deliberately broken value a test stored as it is', async () => {
    Object.assign(mock().catalog.sites[0] ?? {}, { lat: 'not-a-number', lng: null, imgs: null });
    const page = await resultOf<Page<Row>>(mock(), '/api/site/list', { query: { pageSize: 1 } });
    expect(page.items[0]).toMatchObject({ lat: 'not-a-number', lng: null, imgs: null });
  });

  it('answers a plain-text 500, not a hung request, when a stored record cannot be served', async () => {
    Object.assign(mock().catalog.sites[0] ?? {}, { points: undefined });
    const answer = await api(mock(), '/api/site/detail', { query: { siteCode: 'S000001' } });
    expect(answer.status).toBe(500);
    expect(answer.text).toMatch(/^mock upstream error: TypeError/);
  });
});

describe('close', () => {
  it('resolves while a hung request is pending, and the client sees the connection end', async () => {
    const mock = await createMockUpstream();
    const token = await fetchToken(mock);
    mock.fault('/api/site/detail', 'hang');
    const request = fetch(apiUrl(mock, '/api/site/detail', { siteCode: 'S000001' }), {
      headers: { authorization: `Bearer ${token}` },
    });
    const settled = request.then(() => 'answered', () => 'failed');
    await vi.waitFor(() => expect(mock.calls('/api/site/detail')).toBe(1), WAIT);
    await mock.close();
    expect(await settled).toBe('failed');
  });

  it('resolves while a slow body and a delayed answer are pending, and can be called twice', async () => {
    const mock = await createMockUpstream();
    const token = await fetchToken(mock);
    mock.fault('/api/city/list', 'slow-body');
    const slow = fetch(apiUrl(mock, '/api/city/list'), { headers: { authorization: `Bearer ${token}` } })
      .then((r) => r.text()).catch(() => 'failed');
    await vi.waitFor(() => expect(mock.calls('/api/city/list')).toBe(1), WAIT);
    mock.setLatency(60_000);
    const delayed = fetch(apiUrl(mock, '/api/products/list'), { headers: { authorization: `Bearer ${token}` } }).catch(() => 'failed');
    await vi.waitFor(() => expect(mock.calls('/api/products/list')).toBe(1), WAIT);
    await Promise.all([mock.close(), mock.close()]);
    expect(await slow).toBe('failed');
    expect(await delayed).toBe('failed');
  });
});
