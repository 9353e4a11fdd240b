/**
 * /readyz says whether this replica can answer, not whether the upstream is healthy: every
 * replica shares the upstream and its token endpoint, and a fleet taken out of the load balancer
 * at once by a token endpoint that refuses could serve nothing, though its cached data could be.
 * So it is 503 only while the gateway stops; the token's state is in its details.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startGateway, type Harness } from '../../helpers/gateway.js';
import { get, post } from '../../helpers/http.js';
import { manualClock } from '../../helpers/upstream.js';

const PRODUCT = 'query($g: String!) { product(goodsCode: $g) { productName } }';
const CITIES = '{ cities { total } }';

describe('/readyz and /healthz', () => {
  let h: Harness;
  afterEach(() => h.close());

  it('answers ready with the token held and the circuit state of every upstream operation called so far', async () => {
    h = await startGateway();
    await post(h, CITIES);
    await post(h, PRODUCT, { variables: { g: 'G00001' } });
    const ready = await get(h, '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({
      status: 'ready', upstream: { token: 'ok' }, breakers: { '/api/city/list': 'closed', '/api/product/detail': 'closed' },
    });
  });

  it('asks for a token when none is held, without waiting for it', async () => {
    h = await startGateway({ mock: { latencyMs: 50 } });
    const first = await get(h, '/readyz');
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ status: 'ready', upstream: { token: 'pending' }, breakers: {} });
    expect((await post(h, CITIES)).body.errors).toBeUndefined();
    // The query shared the request the probe started.
    expect(h.mock.calls('/oauth/token')).toBe(1);
    expect((await get(h, '/readyz')).body.upstream).toEqual({ token: 'ok' });
  });

  it('stays ready while a circuit is open, and shows it open: cached data and other operations still serve', async () => {
    h = await startGateway({ env: { UPSTREAM_RETRIES: '0' } });
    h.mock.fault('/api/product/detail', 'http503');
    for (let i = 1; i <= 5; i += 1) await post(h, PRODUCT, { variables: { g: `G0000${i}` } });
    const ready = await get(h, '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ready', upstream: { token: 'ok' }, breakers: { '/api/product/detail': 'open' } });
  });

  it('stays ready while the token endpoint is down, serving what it has cached, with the token failing and its code in the details', async () => {
    const wallClock = manualClock();
    h = await startGateway({ wallClock: wallClock.now });
    const cached = await post(h, CITIES);
    expect(cached.body.errors).toBeUndefined();
    h.mock.fault('/oauth/token', 'http503');
    h.mock.expireAllTokens();
    // The next upstream call finds its token refused, and no new one can be had.
    const refused = await post(h, PRODUCT, { variables: { g: 'G00001' } });
    expect(refused.body.errors[0].extensions.code).toBe('UPSTREAM_UNAVAILABLE');

    const down = await get(h, '/readyz');
    expect(down.status).toBe(200);
    expect(down.body).toMatchObject({ status: 'ready', upstream: { token: 'failing', code: 'UPSTREAM_UNAVAILABLE' } });
    expect((await post(h, CITIES)).body).toEqual(cached.body);

    h.mock.clearFaults();
    wallClock.advance(1000); // the token manager's first backoff
    expect((await post(h, PRODUCT, { variables: { g: 'G00001' } })).body.errors).toBeUndefined();
    expect((await get(h, '/readyz')).body).toMatchObject({ status: 'ready', upstream: { token: 'ok' } });
  });

  it('stays ready while the token endpoint refuses the credentials, saying so', async () => {
    h = await startGateway({ upstream: { clientSecret: 'wrong-secret' } });
    expect((await post(h, CITIES)).body.errors[0].extensions.code).toBe('UPSTREAM_AUTH_FAILED');
    const refused = await get(h, '/readyz');
    expect(refused.status).toBe(200);
    expect(refused.body).toEqual({ status: 'ready', upstream: { token: 'failing', code: 'UPSTREAM_AUTH_FAILED' }, breakers: {} });
  });

  it('answers 503 once the gateway is stopping, while /healthz and GraphQL still answer', async () => {
    h = await startGateway();
    await post(h, CITIES);
    h.gateway.drain();
    const stopping = await get(h, '/readyz');
    expect(stopping.status).toBe(503);
    expect(stopping.body).toEqual({ status: 'stopping', upstream: { token: 'ok' }, breakers: { '/api/city/list': 'closed' } });
    expect((await get(h, '/healthz')).status).toBe(200);
    expect((await post(h, CITIES)).body.errors).toBeUndefined();
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
