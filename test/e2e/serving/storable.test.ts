/**
 * Whether an answer may be stored is the request object's to say (request/request.ts), from what
 * the request did and the result it got: no plugin has to have noted anything first. Here the
 * request log, which once wrote the error codes the response cache read, or the request scope's
 * plugin, which once marked answers made of the time now, is not wired at all.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startGateway, type Harness } from '../../helpers/gateway.js';

const PRODUCT = `query Product($g: String!) { product(goodsCode: $g) { goodsCode productName } }`;

const OPEN_NOW = `query Open($c: String!) { site(code: $c) { code isOpen } }`;

async function ask(h: Harness, method: 'GET' | 'POST', code: string, query = PRODUCT) {
  const variables = JSON.stringify(query === PRODUCT ? { g: code } : { c: code });
  const response = method === 'GET'
    ? await fetch(`${h.url}/graphql?query=${encodeURIComponent(query)}&variables=${encodeURIComponent(variables)}`)
    : await fetch(`${h.url}/graphql`, { method, headers: { 'content-type': 'application/json' }, body: `{"query":${JSON.stringify(query)},"variables":${variables}}` });
  const body = (await response.json()) as { errors?: unknown[] };
  return { cache: response.headers.get('x-cache'), cacheControl: response.headers.get('cache-control'), errors: body.errors?.length ?? 0 };
}

describe.each(['GET', 'POST'] as const)('what the response cache stores, by %s', (method) => {
  let h: Harness;
  afterEach(() => h.close());

  it('without the request log, refuses an answer with errors and stores the whole answer that follows', async () => {
    h = await startGateway({
      env: { UPSTREAM_RETRIES: '0', CACHE_TTL_PRODUCTS_S: '60' },
      plugins: (all, { requestLog }) => all.filter((plugin) => plugin !== requestLog),
    });
    const goodsCode = h.mock.catalog.products[0]!.goodsCode;
    h.mock.fault('/api/product/detail', 'http503', { times: 1 });

    const failed = await ask(h, method, goodsCode);
    expect(failed.errors).toBe(1);
    expect(failed.cacheControl).toBe('no-store');
    const callsAfterFailure = h.mock.calls();

    const retried = await ask(h, method, goodsCode);
    expect(retried).toMatchObject({ errors: 0, cache: 'miss' });
    expect(h.mock.calls()).toBe(callsAfterFailure + 1);

    const repeated = await ask(h, method, goodsCode);
    expect(repeated).toMatchObject({ errors: 0, cache: 'hit' });
    expect(h.mock.calls()).toBe(callsAfterFailure + 1);
  });

  it('without the request scope\'s plugin, refuses an answer made of the time now', async () => {
    h = await startGateway({ plugins: (all, { requestScope }) => all.filter((plugin) => plugin !== requestScope) });
    const code = h.mock.catalog.sites[0]!.code;
    const first = await ask(h, method, code, OPEN_NOW);
    expect(first).toMatchObject({ errors: 0, cache: 'miss' });
    const calls = h.mock.calls();
    expect(await ask(h, method, code, OPEN_NOW)).toMatchObject({ errors: 0, cache: 'miss', cacheControl: 'no-store' });
    expect(h.mock.calls()).toBe(calls);
  });
});
