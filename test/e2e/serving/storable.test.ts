/**
 * Whether an answer may be stored is the request object's to say (request/request.ts), from what
 * the request did and the result it got: no plugin has to have noted anything first. Here the
 * request log, which once wrote the error codes the response cache read, is not wired at all.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startGateway, type Harness } from '../../helpers/gateway.js';

const PRODUCT = `query Product($g: String!) { product(goodsCode: $g) { goodsCode productName } }`;

async function ask(h: Harness, method: 'GET' | 'POST', goodsCode: string) {
  const variables = JSON.stringify({ g: goodsCode });
  const response = method === 'GET'
    ? await fetch(`${h.url}/graphql?query=${encodeURIComponent(PRODUCT)}&variables=${encodeURIComponent(variables)}`)
    : await fetch(`${h.url}/graphql`, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: PRODUCT, variables: { g: goodsCode } }) });
  const body = (await response.json()) as { errors?: unknown[] };
  return { cache: response.headers.get('x-cache'), cacheControl: response.headers.get('cache-control'), errors: body.errors?.length ?? 0 };
}

describe.each(['GET', 'POST'] as const)('without the request log, by %s', (method) => {
  let h: Harness;
  afterEach(() => h.close());

  it('refuses to store an answer with errors, and stores the whole answer that follows', async () => {
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
});
