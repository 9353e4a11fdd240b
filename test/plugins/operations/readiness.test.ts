import { afterEach, describe, expect, it } from 'vitest';
import { startGateway, type Harness } from '../../helpers/gateway.js';
import { get, post } from '../../helpers/http.js';
import { manualClock } from '../../helpers/upstream.js';

const PRODUCT = 'query($g: String!) { product(goodsCode: $g) { productName } }';

describe('/readyz and /healthz', () => {
  let h: Harness;
  afterEach(() => h.close());

  it('answers ready with the circuit state of every upstream operation called so far', async () => {
    h = await startGateway();
    expect((await get(h, '/readyz')).body).toEqual({ status: 'ready', breakers: {} });
    await post(h, '{ cities { total } }');
    await post(h, PRODUCT, { variables: { g: 'G00001' } });
    const ready = await get(h, '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ready', breakers: { '/api/city/list': 'closed', '/api/product/detail': 'closed' } });
  });

  it('stays ready while a circuit is open, and shows it open: cached data and other operations still serve', async () => {
    h = await startGateway({ env: { UPSTREAM_RETRIES: '0' } });
    h.mock.fault('/api/product/detail', 'http503');
    for (let i = 1; i <= 5; i += 1) await post(h, PRODUCT, { variables: { g: `G0000${i}` } });
    const ready = await get(h, '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ready', breakers: { '/api/product/detail': 'open' } });
  });

  it('answers 503 with a code when no upstream token can be obtained, and ready again once one can', async () => {
    const wallClock = manualClock();
    h = await startGateway({ wallClock: wallClock.now });
    h.mock.fault('/oauth/token', 'http503');
    const down = await get(h, '/readyz');
    expect(down.status).toBe(503);
    expect(down.body).toEqual({ status: 'unavailable', code: 'UPSTREAM_UNAVAILABLE', breakers: {} });

    h.mock.clearFaults();
    wallClock.advance(1000); // the token manager's first backoff
    expect((await get(h, '/readyz')).status).toBe(200);
  });

  it('keeps /healthz cheap: it answers without asking for a token, even with the token endpoint down', async () => {
    h = await startGateway();
    h.mock.fault('/oauth/token', 'http503');
    const health = await get(h, '/healthz');
    expect(health.status).toBe(200);
    expect(health.body).toEqual({ status: 'ok' });
    expect(h.mock.calls('/oauth/token')).toBe(0);
  });
});
