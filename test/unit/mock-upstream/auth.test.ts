import { describe, expect, it } from 'vitest';
import { createMockUpstream, type MockUpstream } from '../../../src/mock-upstream/index.js';
import { api, fetchToken, useMock } from './client.js';

const TIMEOUT = { code: 500, msg: 'token is timeout. please retry.', timestamp: expect.any(Number) };

describe('API authentication', () => {
  const mock = useMock();

  it('refuses a call without an Authorization header with HTTP 401 and code 401', async () => {
    const answer = await api(mock(), '/api/city/list', { token: null });
    expect(answer.status).toBe(401);
    expect(answer.json()).toEqual({ code: 401, msg: 'invalid token', timestamp: expect.any(Number) });
  });

  it('refuses an unknown token, or a token without the Bearer scheme, with HTTP 401', async () => {
    expect((await api(mock(), '/api/city/list', { token: 'made-up' })).status).toBe(401);
    const token = await fetchToken(mock());
    const response = await fetch(`${mock().url}/api/city/list`, { headers: { authorization: token } });
    expect(response.status).toBe(401);
  });

  it('answers HTTP 401 for a bad token even when errorStatus is something else', async () => {
    mock().behaviour.errorStatus = 500;
    expect((await api(mock(), '/api/city/list', { token: 'made-up' })).status).toBe(401);
  });

  it('answers an expired token with the documented timeout envelope', async () => {
    mock().setTokenLifetime(0);
    const answer = await api(mock(), '/api/site/list');
    expect(answer.status).toBe(200);
    expect(answer.json()).toEqual(TIMEOUT);
    expect(mock().tokenTimeoutsSent()).toBe(1);
  });

  it('sends the timeout envelope with the HTTP status errorStatus', async () => {
    mock().behaviour.errorStatus = 500;
    const token = await fetchToken(mock());
    mock().expireAllTokens();
    const answer = await api(mock(), '/api/products/list', { token });
    expect(answer.status).toBe(500);
    expect(answer.json()).toEqual(TIMEOUT);
  });

  it('expires every token issued so far with expireAllTokens, but not later ones', async () => {
    const first = await fetchToken(mock());
    const second = await fetchToken(mock());
    mock().expireAllTokens();
    const third = await fetchToken(mock());
    expect((await api(mock(), '/api/city/list', { token: first })).json()).toEqual(TIMEOUT);
    expect((await api(mock(), '/api/city/list', { token: second })).json()).toEqual(TIMEOUT);
    expect((await api(mock(), '/api/city/list', { token: third })).json().code).toBe(0);
  });

  it('applies setTokenLifetime to tokens issued from then on only', async () => {
    const before = await fetchToken(mock());
    mock().setTokenLifetime(0);
    const after = await fetchToken(mock());
    expect((await api(mock(), '/api/city/list', { token: before })).json().code).toBe(0);
    expect((await api(mock(), '/api/city/list', { token: after })).json()).toEqual(TIMEOUT);
  });

  it('refuses a token sent in the query, even alongside a valid header', async () => {
    const token = await fetchToken(mock());
    for (const name of ['access_token', 'token']) {
      const answer = await api(mock(), '/api/city/list', { token, query: { [name]: token } });
      expect(answer.json()).toEqual({ code: 400, msg: 'token must be sent in the Authorization header', timestamp: expect.any(Number) });
    }
  });
});

describe('token expiry on an injected clock', () => {
  const withClock = async (test: (mock: MockUpstream, advance: (ms: number) => void) => Promise<void>): Promise<void> => {
    let now = Date.UTC(2030, 0, 1);
    const mock = await createMockUpstream({ tokenLifetimeS: 60, now: () => now });
    try {
      await test(mock, (ms) => { now += ms; });
    } finally {
      await mock.close();
    }
  };

  it('keeps a token valid until its lifetime has passed, then answers the timeout', async () => {
    await withClock(async (mock, advance) => {
      const token = await fetchToken(mock);
      advance(59_999);
      expect((await api(mock, '/api/city/list', { token })).json().code).toBe(0);
      advance(1);
      expect((await api(mock, '/api/city/list', { token })).json()).toEqual(TIMEOUT);
    });
  });

  it('stamps envelopes with the clock in Unix seconds', async () => {
    await withClock(async (mock) => {
      expect((await api(mock, '/api/city/list')).json().timestamp).toBe(Date.UTC(2030, 0, 1) / 1000);
    });
  });
});
