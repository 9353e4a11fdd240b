import { afterEach, describe, expect, it } from 'vitest';
import { createMockUpstream, type MockUpstream } from '../../../src/mock-upstream/index.js';
import { callsByPath, startGateway } from '../../helpers/gateway.js';
import type { TestTopology } from '../../helpers/redis-topologies.js';
import { readiness, startFleet, succeeded, until, type Fleet } from './fleet.js';
import { redisOf, TOPOLOGIES } from './topologies.js';

const DEEP = `query Deep($n: Int!, $p: Int!) {
  sites(page: $p, pageSize: $n) { items { code city { name } points { code cargoLanes { stock product { productName ipName } } } } }
}`;

/** A mixed workload touching every kind of cached data (lists, details, indexes, priming). */
function workload(mock: MockUpstream): Array<[string, Record<string, unknown>?]> {
  const site = (i: number) => mock.catalog.sites[i]!.code;
  const product = (i: number) => mock.catalog.products[i]!.goodsCode;
  return [
    ['{ cities(pageSize: 5) { total items { code name } } }'],
    ['{ sites(pageSize: 10) { total items { code name city { code name } } } }'],
    [DEEP, { n: 10, p: 1 }],
    ['query ($c: String!) { site(code: $c) { name city { name } points { code } } }', { c: site(30) }],
    ['query ($g: String!) { product(goodsCode: $g) { productName guidePrice } }', { g: product(70) }],
    ['{ products(page: 2, pageSize: 5) { total items { goodsCode productName } } }'],
    [DEEP, { n: 10, p: 3 }],
    ['query ($c: String!) { city(code: $c) { name } }', { c: mock.catalog.cities[2]!.code }],
    ['{ sites(page: 4, pageSize: 10) { items { code city { name } points { code } } } }'],
    ['query ($c: String!) { site(code: $c) { name city { name } } }', { c: site(45) }],
  ];
}

describe.each(TOPOLOGIES)('replicas sharing one cache through $name', (topology) => {
  const redis = redisOf(topology);
  let fleet: Fleet<TestTopology> | undefined;
  let mock: MockUpstream | undefined;
  afterEach(async () => {
    await fleet?.close();
    await mock?.close();
    fleet = undefined;
    mock = undefined;
  });

  it('costs the upstream the calls of one replica when the same workload alternates between two', async () => {
    mock = await createMockUpstream();
    const alone = await startGateway({ sharedMock: mock });
    const expected = [];
    for (const [query, variables] of workload(mock)) expected.push(await alone.query(query, variables));
    const oneReplica = callsByPath(mock);
    await alone.close();

    fleet = await startFleet({ redis: redis() });
    const answers = [];
    for (const [i, [query, variables]] of workload(fleet.mock).entries()) answers.push(await fleet.replica(i).query(query, variables));
    expect(answers).toEqual(expected);
    expect(answers.every(succeeded)).toBe(true);
    expect(callsByPath(fleet.mock)).toEqual(oneReplica);
    expect(fleet.mock.calls('/oauth/token')).toBe(1);

    // Swapped, each query meets the replica that did not load its data: same answers, no call.
    fleet.mock.resetCounters();
    const swapped = [];
    for (const [i, [query, variables]] of workload(fleet.mock).entries()) swapped.push(await fleet.replica(i + 1).query(query, variables));
    expect(swapped).toEqual(expected);
    expect(fleet.mock.calls()).toBe(0);
  });

  it('makes each distinct upstream call once for 50 concurrent identical cold queries split across two replicas', async () => {
    mock = await createMockUpstream({ latencyMs: 20 });
    const alone = await startGateway({ sharedMock: mock });
    await alone.query(DEEP, { n: 20, p: 1 });
    const oneQuery = callsByPath(mock);
    await alone.close();

    fleet = await startFleet({ mock: { latencyMs: 20 }, redis: redis() });
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => fleet!.replica(i).query(DEEP, { n: 20, p: 1 })));
    expect(answers.every(succeeded)).toBe(true);
    expect(callsByPath(fleet.mock)).toEqual(oneQuery);
    expect(fleet.mock.calls('/oauth/token')).toBe(1);
  });

  it('answers the city of a site on a replica whose site-to-city index another replica built', async () => {
    fleet = await startFleet({ redis: redis() });
    const [first, other] = [fleet.mock.catalog.sites[4]!.code, fleet.mock.catalog.sites[40]!.code];
    // B holds the other site from its detail, which does not say the city.
    await fleet.b.query('query ($c: String!) { site(code: $c) { code } }', { c: other });
    const cityOf = 'query ($c: String!) { site(code: $c) { code city { code name } } }';
    expect((await fleet.a.query(cityOf, { c: first })).data.site.city).not.toBeNull(); // A builds the index
    fleet.mock.resetCounters();
    const onB = await fleet.b.query(cityOf, { c: other });
    expect(fleet.mock.calls()).toBe(0);
    expect(onB.data.site.city).not.toBeNull();
    expect(onB).toEqual(await fleet.a.query(cityOf, { c: other }));
  });

  it('makes no detail call for a site asked for on one replica while another walks the list that carries it', async () => {
    // Slow pages, so that the walk is still running when B asks (page 1, then the rest at once).
    fleet = await startFleet({ redis: redis(), mock: { latencyMs: 400 } });
    const [first, other] = [fleet.mock.catalog.sites[4]!.code, fleet.mock.catalog.sites[40]!.code];
    const cityOf = 'query ($c: String!) { site(code: $c) { code city { code name } } }';
    const onA = fleet.a.query(cityOf, { c: first }); // its site's detail, then the walk for its city
    await until(async () => (await fleet!.redis.keys('*sitesWithPoints:walk*:lock')).length === 1, 30_000);
    const onB = await fleet.b.query('query ($c: String!) { site(code: $c) { code name } }', { c: other });
    expect(succeeded(onB) && succeeded(await onA)).toBe(true);
    expect(onB.data.site.code).toBe(other);
    expect(fleet.mock.calls('/api/site/detail')).toBe(1); // A's own, before the walk began
  });

  it('keeps every key under the version prefix, each with an expiry but the token, and says Redis is up in /readyz and /metrics', async () => {
    fleet = await startFleet({ redis: redis() });
    expect(succeeded(await fleet.a.query(DEEP, { n: 5, p: 1 }))).toBe(true);
    const keys = await fleet.redis.keys('*');
    expect(keys.length).toBeGreaterThan(5);
    expect(keys.filter((key) => !key.startsWith('vg:v1:'))).toEqual([]);
    expect(keys.filter((key) => key.endsWith(':lock'))).toEqual([]);
    // The token has none, so that Redis, evicting only keys with one (volatile-lru), never takes it.
    const token = keys.filter((key) => key.startsWith('vg:v1:token:'));
    expect(token).toHaveLength(1);
    expect(await fleet.redis.client().pttl(token[0]!)).toBe(-1);
    for (const key of keys.filter((name) => name !== token[0])) expect(await fleet.redis.client().pttl(key), key).toBeGreaterThan(0);

    expect(await readiness(fleet.b)).toMatchObject({ status: 200, body: { status: 'ready', breakers: {}, redis: 'up' } });
    const metrics = await (await fetch(`${fleet.a.url}/metrics`)).text();
    expect(metrics).toMatch(/^gateway_redis_up 1$/m);
    expect(metrics).toContain('# TYPE gateway_redis_errors_total counter');
  });
});
