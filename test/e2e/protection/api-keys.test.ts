import { afterEach, describe, expect, it } from 'vitest';
import { startGateway, type Harness } from '../../helpers/gateway.js';
import { listen } from '../../../src/doors/http/server.js';
import { get, post } from '../../helpers/http.js';

const KEY = 'client-one-key-0123456789';
const OTHER_KEY = 'client-two-key-9876543210';
const CITIES = '{ cities { total } }';

describe('API keys', () => {
  let h: Harness;
  afterEach(() => h.close());

  it('refuses a request without a key, or with a wrong one, with 401, a Bearer challenge and UNAUTHENTICATED', async () => {
    h = await startGateway({ env: { GATEWAY_API_KEYS: `${KEY},${OTHER_KEY}` } });
    const missing = await post(h, CITIES);
    const wrong = await post(h, CITIES, { headers: { authorization: `Bearer ${KEY}x` } });
    const wrongHeader = await post(h, CITIES, { headers: { 'x-api-key': KEY.slice(0, -1) } });
    const otherScheme = await post(h, CITIES, { headers: { authorization: `Basic ${Buffer.from(`u:${KEY}`).toString('base64')}` } });

    for (const answer of [missing, wrong, wrongHeader, otherScheme]) {
      expect(answer.status).toBe(401);
      expect(answer.headers.get('www-authenticate')).toMatch(/^Bearer realm="vending-graph"/);
      expect(answer.body).toEqual({ errors: [{ message: expect.any(String), extensions: { code: 'UNAUTHENTICATED' } }] });
    }
    expect(wrong.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect(h.mock.calls()).toBe(0);
  });

  it('accepts a configured key as Authorization: Bearer and as x-api-key', async () => {
    h = await startGateway({ env: { GATEWAY_API_KEYS: `${KEY}, ${OTHER_KEY}` } });
    const bearer = await post(h, CITIES, { headers: { authorization: `Bearer ${KEY}` } });
    const apiKey = await post(h, CITIES, { headers: { 'x-api-key': OTHER_KEY } });

    expect(bearer.status).toBe(200);
    expect(bearer.body).toEqual({ data: { cities: { total: h.mock.catalog.cities.length } } });
    expect(apiKey.status).toBe(200);
    expect(apiKey.body.data.cities.total).toBe(h.mock.catalog.cities.length);
  });

  it("never forwards a client's Authorization header upstream: the upstream sees only the gateway's token", async () => {
    h = await startGateway({ env: { GATEWAY_API_KEYS: KEY } });
    const site = h.mock.catalog.sites[0]!;
    const answer = await post(h, 'query($c: String!) { site(code: $c) { name } cities { total } }', {
      variables: { c: site.code },
      headers: { authorization: `Bearer ${KEY}` },
    });
    expect(answer.status).toBe(200);

    const issued = h.mock.issuedTokens();
    const apiCalls = h.mock.callLog().filter((entry) => entry.path !== '/oauth/token');
    expect(apiCalls.length).toBeGreaterThan(0);
    for (const call of apiCalls) expect(issued.map((token) => `Bearer ${token}`)).toContain(call.authorization);
    expect(JSON.stringify(h.mock.callLog())).not.toContain(KEY);
  });

  it('keeps /healthz, /readyz and the static GraphiQL page open, and puts /metrics behind the keys', async () => {
    h = await startGateway({ env: { GATEWAY_API_KEYS: KEY } });
    expect((await get(h, '/healthz')).status).toBe(200);
    expect((await get(h, '/readyz')).status).toBe(200);
    const graphiql = await get(h, '/graphql', { accept: 'text/html' });
    expect(graphiql.status).toBe(200);
    expect(graphiql.headers.get('content-type')).toContain('text/html');
    expect((await get(h, '/graphql?query=%7B__typename%7D')).status).toBe(401);
    expect((await get(h, '/metrics')).status).toBe(401);
    expect((await get(h, '/metrics', { 'x-api-key': KEY })).status).toBe(200);
  });

  it('opens only the page itself: a browser GET with a query gets the page, or with GRAPHIQL off a 401', async () => {
    h = await startGateway({ env: { GATEWAY_API_KEYS: KEY } });
    const asBrowser = await get(h, '/graphql?query=%7Bcities%7Btotal%7D%7D', { accept: 'text/html' });
    expect(asBrowser.headers.get('content-type')).toContain('text/html');
    expect(h.mock.calls()).toBe(0);
    await h.close();

    h = await startGateway({ env: { GATEWAY_API_KEYS: KEY, GRAPHIQL: 'false' } });
    const withoutPage = await get(h, '/graphql?query=%7Bcities%7Btotal%7D%7D', { accept: 'text/html' });
    expect(withoutPage.status).toBe(401);
    expect(withoutPage.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    expect(h.mock.calls()).toBe(0);
  });

  it('leaves the gateway open when no keys are set', async () => {
    h = await startGateway();
    expect((await post(h, CITIES)).status).toBe(200);
    expect((await get(h, '/metrics')).status).toBe(200);
  });
});

describe('API keys without the body admission', () => {
  it('still refuses a keyless POST when the server reads bodies unadmitted: the GraphQL road serves only what the admission checked', async () => {
    const h = await startGateway({ env: { GATEWAY_API_KEYS: KEY } });
    const server = await listen(h.gateway.serve, { arrive: h.gateway.arrive, port: 0, host: '127.0.0.1' });
    try {
      const answer = await fetch(`${server.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: CITIES }) });
      expect(answer.status).toBe(401);
      expect(((await answer.json()) as { errors: Array<{ extensions: { code: string } }> }).errors[0]!.extensions.code).toBe('UNAUTHENTICATED');
      expect(h.mock.calls()).toBe(0);
    } finally {
      await server.close(0);
      await h.close();
    }
  });
});
