import { afterEach, describe, expect, it } from 'vitest';
import { startGateway, type Harness } from '../../helpers/gateway.js';
import { codesOf, get, post } from '../../helpers/raw-http.js';

const QUERY = '{ cities(pageSize: 1) { total } }';

describe('CSRF prevention (CSRF_PREVENTION)', () => {
  let h: Harness;
  afterEach(() => h.close());

  it('refuses a GET and a text/plain POST without a preflight-forcing header, and answers a JSON POST', async () => {
    h = await startGateway({ env: { CSRF_PREVENTION: 'true' } });
    expect((await get(h, { query: QUERY })).status).toBe(403);
    expect((await post(h, JSON.stringify({ query: QUERY }), { 'content-type': 'text/plain' })).status).toBe(403);
    expect(h.mock.calls()).toBe(0);
    const json = await post(h, { query: QUERY });
    expect([json.status, json.body.errors]).toEqual([200, undefined]);
  });

  it(`codes the refusal CSRF_HEADER_REQUIRED, with 403, and names the headers that pass`, async () => {
    h = await startGateway({ env: { CSRF_PREVENTION: 'true' } });
    const refusals = [
      await get(h, { query: QUERY }),
      await post(h, JSON.stringify({ query: QUERY }), { 'content-type': 'text/plain' }),
      await post(h, 'query=%7B__typename%7D', { 'content-type': 'application/x-www-form-urlencoded' }),
    ];
    for (const refused of refusals) {
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual({ errors: [{
        message: 'Required CSRF header(s) not present: send one of x-graphql-yoga-csrf, apollo-require-preflight, x-apollo-operation-name',
        extensions: { code: 'CSRF_HEADER_REQUIRED' },
      }] });
    }
    expect(h.mock.calls()).toBe(0);
  });

  it('answers a GET that carries yoga’s or Apollo’s header', async () => {
    h = await startGateway({ env: { CSRF_PREVENTION: '1' } });
    expect((await get(h, { query: QUERY }, { 'x-graphql-yoga-csrf': '1' })).status).toBe(200);
    expect((await get(h, { query: QUERY }, { 'apollo-require-preflight': 'true' })).status).toBe(200);
  });

  it('is off by default: a plain GET is answered', async () => {
    h = await startGateway();
    expect((await get(h, { query: QUERY })).status).toBe(200);
  });
});

describe('CORS (CORS_ORIGINS)', () => {
  let h: Harness;
  afterEach(() => h.close());

  it('allows the listed origins only, without credentials', async () => {
    h = await startGateway({ env: { CORS_ORIGINS: 'https://app.example.com, https://admin.example.com' } });
    const allowed = await post(h, { query: QUERY }, { origin: 'https://admin.example.com' });
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://admin.example.com');
    expect(allowed.headers.get('access-control-allow-credentials')).toBeNull();
    const other = await post(h, { query: QUERY }, { origin: 'https://evil.example.com' });
    expect(other.headers.get('access-control-allow-origin')).not.toBe('https://evil.example.com');
    const preflight = await fetch(`${h.url}/graphql`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
  });

  it('allows any origin by default outside production', async () => {
    h = await startGateway();
    const answer = await post(h, { query: QUERY }, { origin: 'https://anywhere.example.com' });
    expect(answer.headers.get('access-control-allow-origin')).toBe('https://anywhere.example.com');
  });

  it('allows no other origin by default in production', async () => {
    h = await startGateway({ env: { NODE_ENV: 'production' } });
    const answer = await post(h, { query: QUERY }, { origin: 'https://anywhere.example.com' });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('request batching (BATCHING_LIMIT)', () => {
  let h: Harness;
  afterEach(() => h.close());

  it('refuses a JSON array body by default', async () => {
    h = await startGateway();
    const batch = await post(h, [{ query: QUERY }, { query: QUERY }]);
    expect([batch.status, codesOf(batch.body)]).toEqual([400, ['BAD_REQUEST']]);
    expect(h.mock.calls()).toBe(0);
  });

  it('answers a batch of BATCHING_LIMIT operations and refuses one more', async () => {
    h = await startGateway({ env: { BATCHING_LIMIT: '2' } });
    const two = await post(h, [{ query: QUERY }, { query: '{ products(pageSize: 1) { total } }' }]);
    expect(two.status).toBe(200);
    expect(two.body).toHaveLength(2);
    expect(two.body.map((result: any) => result.errors)).toEqual([undefined, undefined]);
    h.mock.resetCounters();
    const three = await post(h, [{ query: QUERY }, { query: QUERY }, { query: QUERY }]);
    expect([three.status, codesOf(three.body)]).toEqual([413, ['BAD_REQUEST']]);
    expect(h.mock.calls()).toBe(0);
  });
});
