import { afterEach, describe, expect, it } from 'vitest';
import { startGateway, type Harness } from '../../helpers/gateway.js';
import { manualClock } from '../../helpers/upstream.js';

const PRODUCT = `query($g: String!) { product(goodsCode: $g) { goodsCode productName } }`;
const SITE_STOCK = `query($c: String!) { site(code: $c) { code points { cargoLanes { stock } } } }`;

/** Resolves once `check` holds; fails after `timeoutMs` (generous: a busy machine is slow, not wrong). */
async function until(check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('resilience: answering while the upstream misbehaves', () => {
  let h: Harness;
  afterEach(() => h.close());

  it('resolves site fields while product detail answers 503, within (1 + retries) calls per key, then the breaker stops them', async () => {
    h = await startGateway({ env: { UPSTREAM_RETRIES: '2' } });
    h.mock.fault('/api/product/detail', 'http503');
    h.mock.fault('/api/products/list', 'http503');
    const site = h.mock.catalog.sites[0]!;
    const { data, errors } = await h.query(
      `query($c: String!) { site(code: $c) { code name points { cargoLanes { stock product { productName } } } } }`,
      { c: site.code },
    );
    expect(data.site.code).toBe(site.code);
    expect(data.site.points[0].cargoLanes[0].stock).toBe(site.points[0]!.cargolanes[0]!.stock);
    const lanes = data.site.points.flatMap((p: any) => p.cargoLanes);
    expect(lanes.every((lane: any) => lane.product === null)).toBe(true);
    expect(new Set(errors!.map((e) => e.extensions?.code))).toEqual(new Set(['UPSTREAM_UNAVAILABLE']));

    const distinct = new Set(site.points.flatMap((p) => p.cargolanes.map((l) => l.goodsCode)).filter(Boolean)).size;
    const calls = h.mock.calls('/api/product/detail');
    expect(calls).toBeLessThanOrEqual(3 * distinct);
    // The breaker opened: a second wave costs the upstream nothing more.
    const again = await h.query(PRODUCT, { g: 'G00077' });
    expect(again.errors?.[0]?.extensions?.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(h.mock.calls('/api/product/detail')).toBe(calls);
  });

  it('answers within the request deadline, with a coded error, when the upstream hangs', async () => {
    // A real deadline is the point: the request's (1 s) ends the wait, not the upstream's (30 s).
    // The bounds only tell one from the other, generous for a busy machine.
    h = await startGateway({ env: { REQUEST_TIMEOUT_MS: '1000', UPSTREAM_TIMEOUT_MS: '30000' } });
    await h.query(`{ cities { total } }`);
    h.mock.fault('/api/site/detail', 'hang');
    const started = Date.now();
    const { data, errors } = await h.query(`{ cities { total } site(code: "S000001") { code } }`);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(data.cities.total).toBe(h.mock.catalog.cities.length);
    expect(data.site).toBeNull();
    expect(errors?.[0]?.extensions?.code).toBe('REQUEST_TIMEOUT');
    // The abandoned upstream call was cancelled: no request is left open on the upstream.
    await until(() => h.mock.inFlight() === 0);
  });

  it('cancels upstream calls that only a disconnected client was waiting for, and no others', async () => {
    // The staying client's deadline must not pass before the checks below; that it has not is
    // asserted, so a slow machine cannot make a missing cancellation look like one.
    h = await startGateway({ env: { REQUEST_TIMEOUT_MS: '3000' } });
    await h.query(`{ cities { total } }`);
    h.mock.fault('/api/site/detail', 'hang');
    const leaving = new AbortController();
    const gone = fetch(`${h.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: `{ a: site(code: "S000001") { code } b: site(code: "S000002") { code } }` }),
      signal: leaving.signal,
    }).catch(() => 'aborted');
    let stayingEnded = false;
    const staying = h.query(`{ site(code: "S000002") { code } }`).finally(() => {
      stayingEnded = true;
    });
    await until(() => h.mock.inFlight('/api/site/detail') === 2);

    leaving.abort();
    expect(await gone).toBe('aborted');
    // S000001 had one waiter, now gone: cancelled. S000002 is still wanted by the other client.
    await until(() => h.mock.inFlight('/api/site/detail') === 1 || stayingEnded);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(stayingEnded).toBe(false);
    expect(h.mock.inFlight('/api/site/detail')).toBe(1);
    // The other client's deadline ends its wait, and with it the last upstream call.
    expect((await staying).errors?.[0]?.extensions?.code).toBe('REQUEST_TIMEOUT');
    await until(() => h.mock.inFlight() === 0);
  });

  it('hides connection resets on 5 % of calls: 0 client-visible errors over 1,000 requests', async () => {
    h = await startGateway({ mock: { catalog: { products: 1000 } } });
    h.mock.fault('/api/product/detail', 'reset', { every: 20 });
    const codes = h.mock.catalog.products.map((p) => p.goodsCode);
    const failures: unknown[] = [];
    for (let i = 0; i < codes.length; i += 25) {
      const answers = await Promise.all(codes.slice(i, i + 25).map((g) => h.query(PRODUCT, { g })));
      failures.push(...answers.filter((a) => a.errors !== undefined));
    }
    expect(failures).toEqual([]);
    expect(h.mock.calls('/api/product/detail')).toBeGreaterThanOrEqual(1050);
  });

  it('serves stale-while-revalidate: 200 concurrent requests at expiry all from cache, with exactly 1 refresh', async () => {
    h = await startGateway({ env: { CACHE_TTL_SITES_S: '30', CACHE_STALE_WHILE_REVALIDATE_S: '60' }, mock: { latencyMs: 50 } });
    const site = h.mock.catalog.sites[0]!;
    const before = site.points[0]!.cargolanes[0]!.stock;
    await h.query(SITE_STOCK, { c: site.code });
    h.mock.setStock(site.code, site.points[0]!.code, 0, before + 1);
    // The refresh is still running when the last of the 200 is answered, even on a busy machine.
    h.mock.setLatency(3000);
    h.mock.resetCounters();
    h.clock.advance(31_000);

    const answers = await Promise.all(Array.from({ length: 200 }, () => h.query(SITE_STOCK, { c: site.code })));
    expect(answers.every((a) => a.errors === undefined && a.data.site.points[0].cargoLanes[0].stock === before)).toBe(true);
    // Once the one refresh has landed, the new stock is served, still from that one call.
    await until(async () => {
      const { data } = await h.query(SITE_STOCK, { c: site.code });
      return data.site.points[0].cargoLanes[0].stock === before + 1;
    });
    expect(h.mock.calls('/api/site/detail')).toBe(1);
  });

  it('survives a failing background refresh: the stale value is served, the failure logged, nothing crashes', async () => {
    h = await startGateway({
      env: { CACHE_TTL_SITES_S: '30', CACHE_STALE_WHILE_REVALIDATE_S: '60', UPSTREAM_RETRIES: '0', RESPONSE_CACHE_MAX_BYTES: '0' },
    });
    const site = h.mock.catalog.sites[0]!;
    await h.query(SITE_STOCK, { c: site.code });
    h.mock.fault('/api/site/detail', 'http503');
    h.clock.advance(31_000);
    const stale = await h.query(SITE_STOCK, { c: site.code });
    expect(stale.errors).toBeUndefined();
    expect(stale.data.site.code).toBe(site.code);
    await until(() => h.logs.some((line) => line.includes('background refresh failed')));
    h.mock.clearFaults();
    const next = await h.query(`{ cities { total } }`);
    expect(next.data.cities.total).toBe(h.mock.catalog.cities.length);
  });

  it('serves stale-if-error with a stale marker, and the error once past the window', async () => {
    h = await startGateway({ env: { CACHE_TTL_SITES_S: '30', CACHE_STALE_IF_ERROR_S: '120', UPSTREAM_RETRIES: '0' } });
    const site = h.mock.catalog.sites[1]!;
    await h.query(SITE_STOCK, { c: site.code });
    h.mock.fault('/api/site/detail', 'http503');

    h.clock.advance(100_000);
    const stale = await h.query(SITE_STOCK, { c: site.code });
    expect(stale.errors).toBeUndefined();
    expect(stale.data.site.code).toBe(site.code);
    expect(stale.extensions?.stale).toEqual([{ key: `site:${site.code}`, ageSeconds: 100 }]);

    h.clock.advance(60_000);
    const failed = await h.query(SITE_STOCK, { c: site.code });
    expect(failed.data.site).toBeNull();
    expect(failed.errors?.[0]?.extensions?.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(failed.extensions?.stale).toBeUndefined();
  });

  for (const errorStatus of [200, 401, 500]) {
    it(`hides token expiry from 200 concurrent cold requests with 1 token request (expiry sent with HTTP ${errorStatus})`, async () => {
      h = await startGateway({ mock: { catalog: { products: 200 }, behaviour: { errorStatus } } });
      await h.query(`{ cities { total } }`);
      h.mock.expireAllTokens();
      h.mock.resetCounters();
      const codes = h.mock.catalog.products.map((p) => p.goodsCode);
      const answers = await Promise.all(codes.map((g) => h.query(PRODUCT, { g })));
      expect(answers.filter((a) => a.errors !== undefined)).toEqual([]);
      expect(h.mock.calls('/oauth/token')).toBe(1);
    });
  }

  it('gives up on a token that fails twice after exactly 2 attempts', async () => {
    h = await startGateway();
    h.mock.fault('/api/product/detail', 'token-timeout');
    const { errors } = await h.query(PRODUCT, { g: 'G00001' });
    expect(errors?.[0]?.extensions).toEqual({ code: 'UPSTREAM_ERROR', upstreamCode: 500 });
    expect(h.mock.calls('/api/product/detail')).toBe(2);
  });

  it('keeps answering cached queries while the token endpoint is down, and recovers with exactly 1 token request', async () => {
    const wallClock = manualClock();
    h = await startGateway({ env: { UPSTREAM_RETRIES: '0' }, wallClock: wallClock.now });
    const product = h.mock.catalog.products[0]!;
    await h.query(PRODUCT, { g: product.goodsCode });
    h.mock.expireAllTokens();
    h.mock.fault('/oauth/token', 'http503');

    const cached = await h.query(PRODUCT, { g: product.goodsCode });
    expect(cached.data.product.goodsCode).toBe(product.goodsCode);
    const cold = await h.query(PRODUCT, { g: h.mock.catalog.products[1]!.goodsCode });
    expect(cold.errors?.[0]?.extensions?.code).toBe('UPSTREAM_UNAVAILABLE');
    await h.query(PRODUCT, { g: h.mock.catalog.products[2]!.goodsCode });

    h.mock.clearFaults();
    h.mock.resetCounters();
    wallClock.advance(1000); // the token manager's first backoff
    const recovered = await Promise.all(
      h.mock.catalog.products.slice(1, 11).map((p) => h.query(PRODUCT, { g: p.goodsCode })),
    );
    expect(recovered.every((a) => a.errors === undefined)).toBe(true);
    expect(h.mock.calls('/oauth/token')).toBe(1);
  });

  it('keeps upstream calls in flight under UPSTREAM_MAX_CONCURRENCY for 500 distinct cold requests', async () => {
    h = await startGateway({
      env: { UPSTREAM_MAX_CONCURRENCY: '8' },
      mock: { catalog: { products: 500 }, latencyMs: 5 },
    });
    const answers = await Promise.all(h.mock.catalog.products.map((p) => h.query(PRODUCT, { g: p.goodsCode })));
    expect(answers.every((a) => a.errors === undefined)).toBe(true);
    expect(h.mock.calls('/api/product/detail')).toBe(500);
    expect(h.mock.maxInFlight()).toBeLessThanOrEqual(8);
  });

  it('fails fast with UPSTREAM_UNAVAILABLE when the bulkhead queue overflows', async () => {
    h = await startGateway({ env: { UPSTREAM_MAX_CONCURRENCY: '2', UPSTREAM_MAX_QUEUE: '3' } });
    await h.query(`{ cities { total } }`);
    // 1 s per call: all 20 requests arrive while the first calls still run, even on a busy machine.
    h.mock.setLatency(1000);
    const answers = await Promise.all(h.mock.catalog.products.slice(0, 20).map((p) => h.query(PRODUCT, { g: p.goodsCode })));
    const failed = answers.filter((a) => a.errors !== undefined);
    expect(failed.length).toBeGreaterThan(0);
    expect(failed.every((a) => a.errors![0]!.extensions?.code === 'UPSTREAM_UNAVAILABLE')).toBe(true);
    expect(answers.length - failed.length).toBeGreaterThanOrEqual(5);
  });

  it('reports each kind of malformed upstream data as a coded error and keeps serving', async () => {
    // A 1 ms cool-down on the gateway's clock, moved past it before each query: the breaker opens
    // on these failures, but lets each next call probe.
    h = await startGateway({ env: { UPSTREAM_RETRIES: '0', UPSTREAM_BREAKER_COOLDOWN_MS: '1' } });
    const defects = [
      { body: '{"msg":"no code here"}' },
      { body: '{"code":0,"msg":"","result":"not an object"}' },
      { body: '{"code":0,"msg":"","result":{"items":"not an array","total":3}}' },
      { body: '[1,2,3]' },
      { body: '<html>oops</html>', contentType: 'text/html' },
      { body: `{"code":0,"result":{"items":[],"total":0},"pad":"${'x'.repeat(11 * 1024 * 1024)}"}` },
    ];
    for (const [i, raw] of defects.entries()) {
      h.mock.fault('/api/products/list', { raw }, { times: 1 });
      h.clock.advance(1);
      const { errors } = await h.query(`{ products(page: ${i + 1}) { total } }`);
      expect(errors?.[0]?.extensions?.code, raw.body.slice(0, 40)).toBe('UPSTREAM_UNAVAILABLE');
    }
    h.clock.advance(1);
    const ok = await h.query(`{ products { total } }`);
    expect(ok.data.products.total).toBe(h.mock.catalog.products.length);
    expect(h.mock.calls('/api/products/list')).toBe(defects.length + 1);
  });
});

describe('the HTTP server', () => {
  let h: Harness;
  afterEach(() => h.close());

  it('refuses a request body over MAX_REQUEST_BODY_BYTES with 413, streamed or declared', async () => {
    h = await startGateway({ env: { MAX_REQUEST_BODY_BYTES: '2048' } });
    const big = JSON.stringify({ query: `{ cities { total } }`, padding: 'x'.repeat(4096) });
    const declared = await fetch(`${h.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: big });
    expect(declared.status).toBe(413);
    expect(((await declared.json()) as any).errors[0].extensions.code).toBe('PAYLOAD_TOO_LARGE');
    const streamed = await fetch(`${h.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: new Blob([big]).stream(),
      duplex: 'half',
    } as RequestInit);
    expect(streamed.status).toBe(413);
    const small = await h.query(`{ cities { total } }`);
    expect(small.data.cities.total).toBe(h.mock.catalog.cities.length);
  });

  it('refuses oversized headers with 431', async () => {
    h = await startGateway();
    const response = await fetch(`${h.url}/graphql?query={__typename}`, { headers: { 'x-big': 'y'.repeat(20_000) } });
    expect(response.status).toBe(431);
  });
});
