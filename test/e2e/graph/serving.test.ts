import { GraphQLError } from 'graphql';
import { afterEach, describe, expect, it } from 'vitest';
import { maskError } from '../../../src/graph/mask-error.js';
import { UpstreamError } from '../../../src/upstream/errors.js';
import { startGateway, type Harness } from '../../helpers/gateway.js';

describe('serving', () => {
  let h: Harness;
  afterEach(() => h.close());

  it('answers GET /graphql queries too', async () => {
    h = await startGateway();
    const query = encodeURIComponent('{ cities(pageSize: 2) { items { code } } }');
    const response = await fetch(`${h.url}/graphql?query=${query}`);
    const body = (await response.json()) as any;
    expect(body.data.cities.items).toEqual(h.mock.catalog.cities.slice(0, 2).map((c) => ({ code: c.code })));
  });

  it('serves GraphiQL to a browser, opening on the example query', async () => {
    h = await startGateway();
    const page = await fetch(`${h.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(page.headers.get('content-type')).toContain('text/html');
    const html = await page.text();
    expect(html).toContain('SitesWithProducts');
    expect(html).toContain('cargoLanes');
  });

  it('is alive on /healthz, and ready on /readyz while no token can be obtained, saying so', async () => {
    h = await startGateway();
    expect(await (await fetch(`${h.url}/healthz`)).json()).toEqual({ status: 'ok' });
    h.mock.fault('/oauth/token', 'http503');
    await h.query('{ cities { total } }');
    const down = await fetch(`${h.url}/readyz`);
    expect(down.status).toBe(200);
    expect(await down.json()).toEqual({ status: 'ready', upstream: { token: 'failing', code: 'UPSTREAM_UNAVAILABLE' }, breakers: {} });
  });

  it('reports refused credentials as UPSTREAM_AUTH_FAILED on every field that needs the upstream', async () => {
    h = await startGateway({ upstream: { clientSecret: 'wrong-secret' } });
    const refused = await h.query(`{ city(code: "SH") { name } product(goodsCode: "G00001") { productName } }`);
    expect(refused.data).toEqual({ city: null, product: null });
    expect(refused.errors?.map((e) => e.extensions?.code)).toEqual(['UPSTREAM_AUTH_FAILED', 'UPSTREAM_AUTH_FAILED']);
    expect(h.mock.calls('/oauth/token')).toBe(1);
    expect(h.mock.calls()).toBe(0);
  });

  it('never shows a token or the client secret in answers or logs, whatever fails', async () => {
    h = await startGateway({ mock: { clientSecret: 'very-secret-value-123' } });
    await h.query(`{ cities { total } }`);
    h.mock.expireAllTokens();
    h.mock.fault('/api/product/detail', 'token-timeout');
    h.mock.fault('/api/site/detail', 'non-json');
    h.mock.fault('/api/city/list', 'reset');
    const site = h.mock.catalog.sites[0]!.code;
    const answers = [
      await h.query(`{ product(goodsCode: "G00001") { productName } }`),
      await h.query(`query($c: String!) { site(code: $c) { code } }`, { c: site }),
      await h.query(`{ cities(page: 9) { total } }`),
    ];
    h.mock.fault('/oauth/token', 'http503');
    h.mock.expireAllTokens();
    answers.push(await h.query(`{ products(page: 3) { total } }`));
    expect(answers.every((answer) => answer.errors !== undefined)).toBe(true);

    const seen = JSON.stringify(answers) + h.logs.join('');
    expect(h.mock.issuedTokens().length).toBeGreaterThan(1);
    for (const token of h.mock.issuedTokens()) expect(seen).not.toContain(token);
    expect(seen).not.toContain('very-secret-value-123');
    expect(seen).not.toContain(h.mock.url);
  });
});

describe('masking errors', () => {
  it('passes coded upstream errors through with their code, never with the upstream’s own msg', () => {
    const located = new GraphQLError('x', {
      path: ['site'],
      originalError: new UpstreamError('UPSTREAM_ERROR', 'GET /api/site/detail failed', { upstreamCode: 1001, upstreamMsg: 'busy' }),
    });
    const masked = maskError(located, 'Unexpected error.') as GraphQLError;
    expect(masked.message).toBe('The upstream answered with an error');
    expect(masked.extensions).toEqual({ code: 'UPSTREAM_ERROR', upstreamCode: 1001 });
    expect(masked.path).toEqual(['site']);
  });

  it('masks anything unexpected, with no message or stack from the original', () => {
    const located = new GraphQLError('boom', { originalError: new TypeError('cannot read secret of undefined') });
    const masked = maskError(located, 'Unexpected error.') as GraphQLError;
    expect(masked.message).toBe('Unexpected error.');
    expect(masked.extensions.code).toBe('INTERNAL_SERVER_ERROR');
    expect(JSON.stringify(masked.toJSON())).not.toContain('secret');
  });
});
