import { describe, expect, it } from 'vitest';
import type { Fault } from '../../../src/mock-upstream/index.js';
import { api, apiUrl, fetchToken, postToken, useMock } from './client.js';

describe('fault injection', () => {
  const mock = useMock();

  it('answers http503 with HTTP 503 and a text body, no envelope', async () => {
    mock().fault('/api/site/detail', 'http503');
    const answer = await api(mock(), '/api/site/detail', { query: { siteCode: 'S000001' } });
    expect(answer.status).toBe(503);
    expect(answer.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(answer.text).toBe('Service Unavailable');
  });

  it('answers non-json with HTTP 200 and an HTML page', async () => {
    mock().fault('/api/city/list', 'non-json');
    const answer = await api(mock(), '/api/city/list');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^text\/html/);
    expect(answer.text).toMatch(/^<!DOCTYPE html>/);
    expect(() => answer.json()).toThrow(SyntaxError);
  });

  it('answers token-timeout with the timeout envelope whatever the token, and counts it', async () => {
    mock().behaviour.errorStatus = 500;
    mock().fault('/api/products/list', 'token-timeout');
    const answer = await api(mock(), '/api/products/list');
    expect(answer.status).toBe(500);
    expect(answer.json()).toEqual({ code: 500, msg: 'token is timeout. please retry.', timestamp: expect.any(Number) });
    expect(mock().tokenTimeoutsSent()).toBe(1);
  });

  it('answers an envelope fault with that error envelope and HTTP errorStatus', async () => {
    mock().behaviour.errorStatus = 503;
    mock().fault('/api/site/list', { envelope: { code: 1001, msg: 'system busy' } });
    const answer = await api(mock(), '/api/site/list');
    expect(answer.status).toBe(503);
    expect(answer.json()).toEqual({ code: 1001, msg: 'system busy', timestamp: expect.any(Number) });
  });

  it('resets the connection without an answer on reset', async () => {
    const token = await fetchToken(mock());
    mock().fault('/api/site/list', 'reset');
    await expect(fetch(apiUrl(mock(), '/api/site/list'), { headers: { authorization: `Bearer ${token}` } })).rejects.toThrow(TypeError);
    expect(mock().calls('/api/site/list')).toBe(1);
  });

  it('never answers on hang, so the client times out', async () => {
    const token = await fetchToken(mock());
    mock().fault('/api/site/detail', 'hang');
    const started = Date.now();
    const request = fetch(apiUrl(mock(), '/api/site/detail', { siteCode: 'S000001' }), {
      headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(300),
    });
    await expect(request).rejects.toMatchObject({ name: 'TimeoutError' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
  });

  it('sends headers and the first bytes of the real envelope at once on slow-body, then trickles', async () => {
    const token = await fetchToken(mock());
    mock().fault('/api/city/list', 'slow-body');
    const response = await fetch(apiUrl(mock(), '/api/city/list'), {
      // 2 s: the headers come at once even on a busy machine; the body has trickled ~4 bytes by then.
      headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(2000),
    });
    expect(response.status).toBe(200);
    const length = Number(response.headers.get('content-length'));
    expect(length).toBeGreaterThan(100);
    const reader = response.body?.getReader();
    if (!reader) throw new Error('no body');
    let received = '';
    const readAll = async (): Promise<void> => {
      for (;;) {
        const chunk = await reader.read();
        if (chunk.done) return;
        received += new TextDecoder().decode(chunk.value);
      }
    };
    await expect(readAll()).rejects.toMatchObject({ name: 'TimeoutError' });
    expect(received).toMatch(/^\{"code":0,/);
    expect(received.length).toBeLessThan(40); // far from the whole body, however late the timer
  });

  it('delivers the whole real answer on slow-body in the end', async () => {
    mock().fault('/api/city/list', 'slow-body');
    const started = Date.now();
    // 'Method Not Allowed' is 18 bytes: 16 at once, then one byte every 500 ms, so 1 s in all.
    const answer = await api(mock(), '/api/city/list', { method: 'POST', token: null });
    expect(answer.status).toBe(405);
    expect(answer.text).toBe('Method Not Allowed');
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
  });

  it('affects only as many requests as times says, then clears itself', async () => {
    const token = await fetchToken(mock());
    mock().fault('/api/city/list', 'http503', { times: 2 });
    const statuses = [];
    for (let i = 0; i < 3; i += 1) statuses.push((await api(mock(), '/api/city/list', { token })).status);
    expect(statuses).toEqual([503, 503, 200]);
  });

  it('applies a fault on * to every path, the token endpoint included', async () => {
    const token = await fetchToken(mock());
    mock().fault('*', 'http503');
    expect((await api(mock(), '/api/city/list', { token })).status).toBe(503);
    expect((await api(mock(), '/api/products/list', { token })).status).toBe(503);
    await expect(fetchToken(mock())).rejects.toThrow(/503/);
  });

  it('prefers a fault on the exact path over one on *', async () => {
    const token = await fetchToken(mock());
    mock().fault('*', 'http503');
    mock().fault('/api/city/list', { envelope: { code: 7, msg: 'exact' } });
    expect((await api(mock(), '/api/city/list', { token })).json().msg).toBe('exact');
    expect((await api(mock(), '/api/site/list', { token })).status).toBe(503);
  });

  it('faults the token endpoint when asked', async () => {
    mock().fault('/oauth/token', 'non-json', { times: 1 });
    await expect(fetchToken(mock())).rejects.toThrow(SyntaxError);
    await expect(fetchToken(mock())).resolves.toEqual(expect.any(String));
  });

  it('removes one fault with null and every fault with clearFaults', async () => {
    const token = await fetchToken(mock());
    mock().fault('/api/city/list', 'http503');
    mock().fault('/api/site/list', 'http503');
    mock().fault('/api/city/list', null);
    expect((await api(mock(), '/api/city/list', { token })).status).toBe(200);
    expect((await api(mock(), '/api/site/list', { token })).status).toBe(503);
    mock().clearFaults();
    expect((await api(mock(), '/api/site/list', { token })).status).toBe(200);
  });

  it('answers a raw fault with exactly its status, content type and body', async () => {
    const token = await fetchToken(mock());
    mock().fault('/api/city/list', { raw: { status: 502, body: '{"code":', contentType: 'text/x-broken' } });
    const answer = await api(mock(), '/api/city/list', { token });
    expect(answer.status).toBe(502);
    expect(answer.headers.get('content-type')).toBe('text/x-broken');
    expect(answer.headers.get('content-length')).toBe('8');
    expect(answer.text).toBe('{"code":');
  });

  it('answers a raw fault with HTTP 200 and a JSON content type by default, on the token endpoint too', async () => {
    mock().fault('*', { raw: { body: '[1,2,3]' } });
    const answer = await api(mock(), '/api/products/list', { token: null });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(answer.json()).toEqual([1, 2, 3]);
    expect((await postToken(mock(), { grant_type: 'client_credentials' })).text).toBe('[1,2,3]');
  });

  it('affects only every n-th request with every, counting times only on those', async () => {
    const token = await fetchToken(mock());
    mock().fault('/api/city/list', 'http503', { every: 3, times: 2 });
    const statuses = [];
    for (let i = 0; i < 9; i += 1) statuses.push((await api(mock(), '/api/city/list', { token })).status);
    expect(statuses).toEqual([200, 200, 503, 200, 200, 503, 200, 200, 200]);
  });

  it('rejects an unknown fault, a malformed raw fault or a bad times or every, echoing it', () => {
    expect(() => mock().fault('/api/city/list', 'explode' as unknown as Fault)).toThrow(/but got: "explode"/);
    expect(() => mock().fault('/api/city/list', { raw: { body: 42 } } as unknown as Fault)).toThrow(/but got: \{"raw":\{"body":42\}\}/);
    expect(() => mock().fault('/api/city/list', { raw: { status: 99, body: '' } })).toThrow(TypeError);
    expect(() => mock().fault('/api/city/list', 'hang', { times: 0 })).toThrow(/but got: 0/);
    expect(() => mock().fault('/api/city/list', 'hang', { every: 1.5 })).toThrow(/every must be an integer >= 1, but got: 1.5/);
  });
});
