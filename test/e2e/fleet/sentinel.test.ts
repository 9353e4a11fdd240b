/**
 * Two replicas over Redis Sentinel (`REDIS_SENTINELS`, `REDIS_SENTINEL_NAME`): a primary, its
 * replica and three sentinels started by the test, with passwords on the data nodes and on the
 * sentinels. The replicas share through the primary the sentinels name; when it dies under load,
 * no client request fails (each replica works alone meanwhile), and once the sentinels have
 * promoted the replica, the gateways find it and share again. Waits are generous polls.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { callsByPath } from '../../helpers/gateway.js';
import { logEntries } from '../../helpers/http.js';
import { startRedisSentinel, type TestSentinel } from '../../helpers/redis-topologies.js';
import { readiness, startFleet, steadyTraffic, succeeded, until, type Fleet } from './fleet.js';

const SITE = 'query ($c: String!) { site(code: $c) { code name points { code } } }';
const PRODUCT = 'query ($g: String!) { product(goodsCode: $g) { productName } }';
const LIST = 'query ($p: Int!) { sites(page: $p, pageSize: 10) { items { code city { name } } } }';
/** Bounds for a hung start or failover, not for a slow one: each wait below polls for up to 60 s. */
const START_TIMEOUT_MS = 180_000;
const FAILOVER_TEST_TIMEOUT_MS = 300_000;

describe('replicas over Redis Sentinel', () => {
  let sentinel: TestSentinel;
  let fleet: Fleet<TestSentinel> | undefined;
  beforeAll(async () => {
    sentinel = await startRedisSentinel();
  }, START_TIMEOUT_MS);
  afterEach(async () => {
    await fleet?.close();
    fleet = undefined;
  });
  afterAll(() => sentinel?.close());

  it('share the cache and the token through the primary the sentinels name', async () => {
    fleet = await startFleet({ redis: sentinel });
    const { a, b, mock } = fleet;
    const site = mock.catalog.sites[5]!.code;
    expect(succeeded(await a.query(SITE, { c: site }))).toBe(true);
    expect(succeeded(await a.query(LIST, { p: 2 }))).toBe(true);
    const onA = callsByPath(mock);
    expect(mock.calls('/oauth/token')).toBe(1);

    expect(succeeded(await b.query(SITE, { c: site }))).toBe(true);
    expect(succeeded(await b.query(LIST, { p: 2 }))).toBe(true);
    expect(callsByPath(mock)).toEqual(onA);
    expect((await sentinel.keys('vg:v1:token:*')).filter((name) => !name.endsWith(':lock'))).toHaveLength(1);
    expect(await readiness(b)).toMatchObject({ status: 200, body: { redis: 'up' } });
  });

  it('fails no client request while the primary dies under load, and shares again once its replica is promoted', async () => {
    fleet = await startFleet({ redis: sentinel, mock: { latencyMs: 2, catalog: { sites: 400, products: 300 } } });
    const { a, b, mock } = fleet;
    const sites = mock.catalog.sites.map((site) => site.code);
    // New keys all along (sites, products, pages), so Redis is asked for something throughout.
    const traffic = steadyTraffic(fleet, (i) => [
      [SITE, { c: sites[i % 300]! }], // the last hundred are kept for after the failover
      [PRODUCT, { g: mock.catalog.products[i % 300]!.goodsCode }],
      [LIST, { p: 1 + (i % 30) }],
    ][i % 3] as [string, Record<string, unknown>]);
    try {
      await until(async () => traffic.sent > 40);
      const primary = await sentinel.primaryPort();
      await sentinel.killPrimary();
      await until(async () => (await sentinel.primaryPort().catch(() => primary)) !== primary, 60_000);
      // Both replicas back on Redis (the promoted replica), under load all along.
      await until(async () => (await readiness(a)).body.redis === 'up' && (await readiness(b)).body.redis === 'up', 60_000);
      const promoted = traffic.sent;
      await until(async () => traffic.sent > promoted + 40, 60_000);
    } finally {
      await traffic.stop();
    }
    expect(traffic.failures).toEqual([]);
    expect(traffic.sent).toBeGreaterThan(80);

    // Sharing resumes: a new key fetched on one replica is served to the other without an upstream call.
    let next = 300;
    await until(async () => {
      const site = sites[next++]!;
      if (!succeeded(await a.query(SITE, { c: site }))) return false;
      const calls = mock.calls();
      return succeeded(await b.query(SITE, { c: site })) && mock.calls() === calls;
    }, 60_000);

    // The logs name the topology by its hosts and ports, and never a password.
    const where = `sentinel ${sentinel.env.REDIS_SENTINEL_NAME} at ${sentinel.env.REDIS_SENTINELS}`;
    const lost = [a, b].flatMap(logEntries).filter((entry) => String(entry.msg).startsWith('redis connection lost'));
    expect(lost.map((entry) => entry.redis)).toEqual([where, where]);
    const logs = [a, b].flatMap((h) => h.logs).join('');
    for (const secret of [sentinel.env.REDIS_PASSWORD!, sentinel.env.REDIS_SENTINEL_PASSWORD!]) expect(logs).not.toContain(secret);
  }, FAILOVER_TEST_TIMEOUT_MS);

  it('share over TLS with the sentinels and the data nodes, trusting the private CA of REDIS_TLS_CA_FILE', async () => {
    const secure = await startRedisSentinel({ tls: true });
    try {
      fleet = await startFleet({ redis: secure });
      const site = fleet.mock.catalog.sites[7]!.code;
      const onA = await fleet.a.query(SITE, { c: site });
      expect(succeeded(onA)).toBe(true);
      fleet.mock.resetCounters();
      expect(await fleet.b.query(SITE, { c: site })).toEqual(onA);
      expect(fleet.mock.calls()).toBe(0);
      expect((await secure.keys('vg:v1:token:*')).filter((name) => !name.endsWith(':lock'))).toHaveLength(1);
    } finally {
      await fleet?.close();
      fleet = undefined;
      await secure.close();
    }
  }, START_TIMEOUT_MS);
});
