import { afterEach, describe, expect, it } from 'vitest';
import type { Fault } from '../../../src/mock-upstream/index.js';
import { startGateway, type Harness } from '../../helpers/gateway.js';
import { get } from '../../helpers/http.js';
import { manualClock } from '../../helpers/upstream.js';

const TOKEN_PATH = '/oauth/token';
const DETAIL = '/api/product/detail';
const PRODUCT = 'query($g: String!) { product(goodsCode: $g) { productName } }';

/** Two ways an upstream refuses every token it is shown. */
const REFUSALS: Array<[string, Fault]> = [
  ['the token-timeout envelope', 'token-timeout'],
  ['HTTP 401', { raw: { status: 401, body: 'Unauthorized', contentType: 'text/plain' } }],
];

describe.each(REFUSALS)('an upstream that refuses every token with %s', (_name, refusal) => {
  let h: Harness;
  afterEach(() => h.close());

  /** The error code of one product query (a different product each time: nothing is cached). */
  async function codeOfQuery(i: number): Promise<unknown> {
    const goodsCode = h.mock.catalog.products[i % h.mock.catalog.products.length]!.goodsCode;
    const { data, errors } = await h.query(PRODUCT, { g: goodsCode });
    expect(data?.product ?? null).toBeNull();
    return errors?.[0]?.extensions?.code;
  }

  it('costs two token requests for 50 client requests, a handful a minute after that, and /readyz says so (staying ready) until tokens are accepted again', async () => {
    const wall = manualClock();
    h = await startGateway({ wallClock: wall.now });
    h.mock.fault(DETAIL, refusal);

    const codes = [];
    for (let i = 0; i < 50; i += 1) codes.push(await codeOfQuery(i));
    // The first request's token and its fresh replacement; then the refusal counts as a failed
    // token request and every later request fails fast, with a code.
    expect(h.mock.calls(TOKEN_PATH)).toBe(2);
    expect(codes.every((code) => typeof code === 'string')).toBe(true);
    expect(codes.slice(1).every((code) => code === 'UPSTREAM_AUTH_FAILED')).toBe(true);
    // The replica can still answer (cached data): ready, with the refusal in the details.
    const refusing = await get(h, '/readyz');
    expect(refusing.status).toBe(200);
    expect(refusing.body).toMatchObject({ status: 'ready', upstream: { token: 'failing', code: 'UPSTREAM_AUTH_FAILED' } });

    // A minute of one request a second: one token request after each pause (1, 2, 4, 8, 16 s).
    for (let second = 1; second <= 60; second += 1) {
      wall.advance(1000);
      await codeOfQuery(second);
    }
    expect(h.mock.calls(TOKEN_PATH) - 2).toBe(5);

    h.mock.clearFaults();
    wall.advance(30_000);
    const { data, errors } = await h.query(PRODUCT, { g: h.mock.catalog.products[0]!.goodsCode });
    expect(errors).toBeUndefined();
    expect(data.product.productName).toBe(h.mock.catalog.products[0]!.productName);
    const ready = await get(h, '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({ status: 'ready', upstream: { token: 'ok' } });
  });

  it('treats the first refusal after an accepted token as an ordinary expiry, and backs off from 1 s again', async () => {
    const wall = manualClock();
    h = await startGateway({ wallClock: wall.now });
    h.mock.fault(DETAIL, refusal);
    for (let i = 0; i < 3; i += 1) await codeOfQuery(i);
    h.mock.clearFaults();
    wall.advance(1000);
    expect((await h.query(PRODUCT, { g: h.mock.catalog.products[3]!.goodsCode })).errors).toBeUndefined();

    h.mock.fault(DETAIL, refusal);
    h.mock.resetCounters();
    for (let i = 4; i < 10; i += 1) await codeOfQuery(i);
    // The accepted token's refusal costs one fresh token at once; that one's refusal starts a
    // new row of pauses, from 1 s.
    expect(h.mock.calls(TOKEN_PATH)).toBe(1);
    wall.advance(999);
    await codeOfQuery(10);
    expect(h.mock.calls(TOKEN_PATH)).toBe(1);
    wall.advance(1);
    await codeOfQuery(11);
    expect(h.mock.calls(TOKEN_PATH)).toBe(2);
  });
});
