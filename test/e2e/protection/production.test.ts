import { afterEach, describe, expect, it } from 'vitest';
import { startGateway, type Harness } from '../../helpers/gateway.js';
import { codesOf, get } from '../../helpers/raw-http.js';

const PRODUCTION = { NODE_ENV: 'production' };

describe('production posture (NODE_ENV=production)', () => {
  let h: Harness;
  afterEach(() => h.close());

  it('does not serve GraphiQL to a browser', async () => {
    h = await startGateway({ env: PRODUCTION });
    const page = await fetch(`${h.url}/graphql`, { headers: { accept: 'text/html' } });
    const body = await page.text();
    expect(page.headers.get('content-type') ?? '').not.toContain('text/html');
    expect(body).not.toContain('SitesWithProducts');
    expect(body.toLowerCase()).not.toContain('graphiql');
  });

  it('refuses introspection with INTROSPECTION_DISABLED, but keeps __typename', async () => {
    h = await startGateway({ env: PRODUCTION });
    const schema = await h.query('{ __schema { types { name } } }');
    expect(codesOf(schema)).toEqual(['INTROSPECTION_DISABLED']);
    expect(codesOf(await h.query('{ __type(name: "Site") { fields { name } } }'))).toEqual(['INTROSPECTION_DISABLED']);
    expect(codesOf(await h.query('{ cities(pageSize: 1) { __typename total } }'))).toEqual([]);
  });

  it('hides "Did you mean" suggestions, which the default posture shows', async () => {
    h = await startGateway({ env: PRODUCTION });
    const typo = await h.query('{ sitez { total } sites(pageSiz: 1) { total } }');
    const messages = (answer: typeof typo) => answer.errors!.map((error) => error.message).join('\n');
    expect(messages(typo)).toContain('Cannot query field "sitez"');
    expect(messages(typo)).toContain('Unknown argument "pageSiz"');
    expect(messages(typo)).not.toMatch(/Did you mean|"sites"/);
    await h.close();
    h = await startGateway();
    expect(messages(await h.query('{ sitez { total } }'))).toMatch(/Did you mean .*"sites"/);
  });

  it('answers introspection and serves GraphiQL when INTROSPECTION and GRAPHIQL say so', async () => {
    h = await startGateway({ env: { ...PRODUCTION, INTROSPECTION: 'true', GRAPHIQL: '1' } });
    const schema = await h.query('{ __schema { queryType { name } } }');
    expect(schema).toEqual({ data: { __schema: { queryType: { name: 'Query' } } } });
    const page = await fetch(`${h.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(await page.text()).toContain('SitesWithProducts');
  });

  it('masks an unexpected error as "Unexpected error." with no stack, cause or address', async () => {
    h = await startGateway({ env: PRODUCTION });
    // The shared cache reads the injected clock: one that throws there makes loads fail
    // unexpectedly (the doors read it too, for the request's start, before anything resolves).
    const monotonic = h.clock.monotonic;
    h.clock.monotonic = () => {
      if (/src[\\/]cache[\\/]lru-cache/.test(new Error().stack ?? '')) throw new TypeError(`clock broke near ${h.mock.url}`);
      return monotonic();
    };
    const answer = await get(h, { query: '{ product(goodsCode: "G00001") { productName } }' });
    expect(answer.body.errors).toEqual([
      { message: 'Unexpected error.', locations: [{ line: 1, column: 3 }], path: ['product'], extensions: { code: 'INTERNAL_SERVER_ERROR' } },
    ]);
    expect(JSON.stringify(answer.body)).not.toMatch(/clock broke|stack|originalError|127\.0\.0\.1/);
  });

  it('shows neither the upstream’s address nor its body when it fails', async () => {
    h = await startGateway({ env: { ...PRODUCTION, UPSTREAM_RETRIES: '0' } });
    h.mock.fault('*', { raw: { status: 500, body: 'java.lang.NullPointerException at secret-upstream-internals', contentType: 'text/plain' } });
    const answer = await get(h, { query: '{ product(goodsCode: "G00001") { productName } }' });
    expect(codesOf(answer.body)).toEqual(['UPSTREAM_UNAVAILABLE']);
    expect(JSON.stringify(answer.body)).not.toMatch(/NullPointer|secret-upstream|stack|127\.0\.0\.1|\/api\//);
  });
});
