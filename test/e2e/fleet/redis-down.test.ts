import { afterEach, describe, expect, it } from 'vitest';
import { readiness, startFleet, steadyTraffic, succeeded, until, type Fleet } from './fleet.js';

const SITE = 'query ($c: String!) { site(code: $c) { code name points { code } } }';
const PRODUCT = 'query ($g: String!) { product(goodsCode: $g) { productName } }';
const MIXED = [
  '{ cities(pageSize: 5) { items { code name } } }',
  '{ sites(pageSize: 10) { items { code city { name } points { cargoLanes { product { productName } } } } } }',
  '{ products(pageSize: 5) { items { goodsCode productName } } }',
];

describe('Redis failure', () => {
  let fleet: Fleet | undefined;
  afterEach(async () => {
    await fleet?.close();
    fleet = undefined;
  });

  it('fails no client request while Redis is stopped mid-run, and shares again once it is back', async () => {
    fleet = await startFleet({ mock: { latencyMs: 2, catalog: { sites: 400, products: 300 } } });
    const { a, b, mock, redis } = fleet;
    const sites = mock.catalog.sites.map((site) => site.code);
    // Steady traffic on both replicas while Redis goes away under it: new keys all along.
    const traffic = steadyTraffic(fleet, (i) => [
      [SITE, { c: sites[i % 399]! }], // the last one is kept for the end
      [PRODUCT, { g: mock.catalog.products[i % 300]!.goodsCode }],
      [MIXED[Math.floor(i / 3) % 3]!, {}],
    ][i % 3] as [string, Record<string, unknown>]);
    await until(async () => traffic.sent > 40);
    await redis.stop();
    await until(async () => (await readiness(a)).body.redis === 'down' && (await readiness(b)).body.redis === 'down');
    const whileDown = traffic.sent;
    await until(async () => traffic.sent > whileDown + 60);
    await traffic.stop();
    expect(traffic.failures).toEqual([]);
    expect(await readiness(a)).toMatchObject({ status: 200, body: { status: 'ready', redis: 'down' } });
    expect(await (await fetch(`${a.url}/metrics`)).text()).toMatch(/^gateway_redis_up 0$/m);

    await redis.start();
    await until(async () => (await readiness(a)).body.redis === 'up' && (await readiness(b)).body.redis === 'up');
    // A new key fetched on one replica is served to the other without an upstream call.
    mock.resetCounters();
    expect(succeeded(await a.query(SITE, { c: sites[399]! }))).toBe(true);
    expect(mock.calls('/api/site/detail')).toBe(1);
    const onB = await b.query(SITE, { c: sites[399]! });
    expect(succeeded(onB)).toBe(true);
    expect(mock.calls()).toBe(1);
  });

  it('fails no client request while Redis hangs, each paying at most about one command timeout', async () => {
    fleet = await startFleet({ env: { REDIS_COMMAND_TIMEOUT_MS: '200' }, mock: { catalog: { sites: 100 } } });
    const { a, b, mock, redis } = fleet;
    await a.query(SITE, { c: mock.catalog.sites[0]!.code });
    redis.pause();
    try {
      for (let i = 1; i <= 20; i += 1) {
        const startedAt = performance.now();
        expect(succeeded(await fleet.replica(i).query(SITE, { c: mock.catalog.sites[i]!.code }))).toBe(true);
        // REDIS_COMMAND_TIMEOUT_MS is 200: one timeout and the query fit in 2 s on a busy machine,
        // a Redis command waiting for the paused server would not (no other deadline comes first).
        expect(performance.now() - startedAt).toBeLessThan(2000);
      }
      expect((await readiness(b)).status).toBe(200);
    } finally {
      redis.resume();
    }
    await until(async () => (await readiness(a)).body.redis === 'up' && (await readiness(b)).body.redis === 'up');
  });
});
