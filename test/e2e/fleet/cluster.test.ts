/**
 * Two replicas on a 3-primary Redis Cluster (`REDIS_CLUSTER_NODES`), started by the test. The
 * sharing of the cache and the token runs on it in sharing.test.ts and token.test.ts (each over
 * every topology); here, what only a Cluster tests: scripts naming several keys (the live
 * leases), which it runs only for keys of one slot, the hash tags that keep a fill's lock with
 * its entry while spreading the entries over the nodes, announcements between replicas whose
 * subscribers listen on different nodes, and a purge that finds a list's entries on every primary.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { logEntries, until } from '../../helpers/http.js';
import { startRedisCluster, type TestTopology } from '../../helpers/redis-topologies.js';
import { subscribeSse, type SseSubscriber } from '../../helpers/sse.js';
import { readiness, startFleet, succeeded, type Fleet } from './fleet.js';

const SITE_STOCK = 'subscription Live($code: String!) { siteStock(code: $code) { code points { code cargoLanes { goodsCode stock } } } }';
const SITES = 'query ($p: Int!) { sites(page: $p, pageSize: 10) { items { code name city { name } } } }';
const DETAIL = '/api/site/detail';
/** A bound for a hung cluster start, not for a slow one: each of its waits polls for up to 60 s. */
const START_TIMEOUT_MS = 180_000;

describe('replicas on a Redis Cluster', () => {
  let cluster: TestTopology;
  let fleet: Fleet<TestTopology> | undefined;
  const subscribers: SseSubscriber[] = [];
  beforeAll(async () => {
    cluster = await startRedisCluster();
  }, START_TIMEOUT_MS);
  afterEach(async () => {
    subscribers.splice(0).forEach((subscriber) => subscriber.close());
    await fleet?.close();
    fleet = undefined;
  });
  afterAll(() => cluster?.close());

  const slotOf = async (key: string) => Number(await cluster.client().call('CLUSTER', 'KEYSLOT', key));

  it('polls two live sites watched on both replicas once each per round, their leases claimed by one script in one slot', async () => {
    // Rounds by hand only (pollNow): the timer's interval never comes within the test.
    fleet = await startFleet({ redis: cluster, env: { LIVE_POLL_S: '3600' } });
    const { a, b, mock } = fleet;
    const sites = mock.catalog.sites.slice(0, 2);
    for (const h of [a, b]) {
      for (const site of sites) subscribers.push(subscribeSse(h.url, SITE_STOCK, { code: site.code }));
    }
    await Promise.all(subscribers.map((subscriber) => subscriber.received(1)));

    const calls = mock.calls(DETAIL);
    await a.gateway.live.poller.pollNow();
    await b.gateway.live.poller.pollNow();
    expect(mock.calls(DETAIL)).toBe(calls + 2); // each replica polling alone would make 4
    const leases = await cluster.keys('vg:v1:live:*:lease:*');
    expect(leases).toHaveLength(2);
    expect(new Set(await Promise.all(leases.map(slotOf))).size).toBe(1);

    // A change read by the lease holder reaches the subscribers of both replicas.
    const [site] = sites;
    const stock = site!.points[0]!.cargolanes[0]!.stock + 7;
    mock.setStock(site!.code, site!.points[0]!.code, 0, stock);
    await a.gateway.live.poller.pollNow();
    await b.gateway.live.poller.pollNow();
    const watching = [subscribers[0]!, subscribers[2]!];
    await until(() => watching.every((subscriber) => subscriber.events.some((event) => event.data?.siteStock?.points[0].cargoLanes[0].stock === stock)));
    expect(subscribers.every((subscriber) => subscriber.events.every((event) => event.errors === undefined))).toBe(true);
  });

  it('keeps each entry with its fill lock in one slot, and spreads the entries over the slots', async () => {
    fleet = await startFleet({ redis: cluster });
    const answers = await Promise.all([1, 2, 3, 4].map((p) => fleet!.replica(p).query(SITES, { p })));
    expect(answers.every(succeeded)).toBe(true);
    const keys = await cluster.keys('vg:v1:*');
    const entries = keys.filter((key) => key.startsWith('vg:v1:cache:'));
    expect(entries.length).toBeGreaterThan(10);
    expect(keys.some((key) => key.startsWith('vg:v1:token:'))).toBe(true);
    for (const key of keys) {
      // redis/fill.ts names the lock of `key` `key:lock`.
      expect(await slotOf(`${key}:lock`), key).toBe(await slotOf(key));
    }
    expect(new Set(await Promise.all(entries.map(slotOf))).size).toBeGreaterThan(entries.length / 2);
    expect(await readiness(fleet.a)).toMatchObject({ status: 200, body: { redis: 'up' } });
    // The logs name the nodes by host and port, and never the password.
    const connected = logEntries(fleet.a).find((entry) => String(entry.msg).startsWith('redis connected'));
    expect(connected?.redis).toBe(`cluster at ${cluster.env.REDIS_CLUSTER_NODES}`);
    expect(fleet.a.logs.join('')).not.toContain(cluster.env.REDIS_PASSWORD);
  });

  it("purges a list on every primary: its pages and answers, whatever slots they are in, and the next page costs one call", async () => {
    const admin = 'cluster-purge-admin-key-0001';
    fleet = await startFleet({ redis: cluster, env: { ADMIN_API_KEYS: admin } });
    const { a, b, mock } = fleet;
    const pages = [1, 2, 3, 4, 5, 6];
    expect((await Promise.all(pages.map((p) => b.query(SITES, { p })))).every(succeeded)).toBe(true);
    const listed = () => cluster.keys('vg:v1:cache:*{sitesWithPoints:*');
    const answers = () => cluster.keys('vg:v1:answer:*');
    await until(async () => (await answers()).length === pages.length);
    expect(new Set(await Promise.all((await listed()).map(slotOf))).size).toBeGreaterThan(1);

    const purged = await fetch(`${a.url}/admin/purge`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': admin }, body: JSON.stringify({ tags: ['sites'] }),
    });
    expect(purged.status).toBe(200);
    expect([await listed(), await answers()]).toEqual([[], []]);
    await until(() => logEntries(b).some((entry) => entry.msg === 'purge heard from another replica'));
    const calls = mock.calls('/api/site/list-with-points');
    expect(succeeded(await b.query(SITES, { p: 2 }))).toBe(true);
    expect(mock.calls('/api/site/list-with-points')).toBe(calls + 1);
  });

  it('shares over TLS, trusting the private CA of REDIS_TLS_CA_FILE', async () => {
    const secure = await startRedisCluster({ tls: true });
    try {
      fleet = await startFleet({ redis: secure });
      const answers = await Promise.all([1, 2].map((p) => fleet!.a.query(SITES, { p })));
      expect(answers.every(succeeded)).toBe(true);
      fleet.mock.resetCounters();
      expect(await Promise.all([1, 2].map((p) => fleet!.b.query(SITES, { p })))).toEqual(answers);
      expect(fleet.mock.calls()).toBe(0);
      expect((await secure.keys('vg:v1:cache:*')).length).toBeGreaterThan(0);
    } finally {
      await fleet?.close();
      fleet = undefined;
      await secure.close();
    }
  }, START_TIMEOUT_MS);
});
