import { afterEach, describe, expect, it } from 'vitest';
import { holdAfterWriting } from '../../helpers/hold-event-loop.js';
import type { TestTopology } from '../../helpers/redis-topologies.js';
import { startFleet, succeeded, type Fleet } from './fleet.js';
import { redisOf, TOPOLOGIES } from './topologies.js';

const SITE = 'query ($c: String!) { site(code: $c) { code name } }';

describe.each(TOPOLOGIES)('one upstream token for the whole fleet on $name', (topology) => {
  const redis = redisOf(topology);
  let fleet: Fleet<TestTopology> | undefined;
  afterEach(async () => {
    await fleet?.close();
    fleet = undefined;
  });

  it('makes exactly 1 token request when the token expires with traffic on both replicas', async () => {
    fleet = await startFleet({ mock: { latencyMs: 10 }, redis: redis() });
    const { a, b, mock } = fleet;
    const sites = mock.catalog.sites.map((site) => site.code);
    const first = await Promise.all(sites.slice(0, 10).map((c, i) => fleet!.replica(i).query(SITE, { c })));
    expect(first.every(succeeded)).toBe(true);
    expect(mock.calls('/oauth/token')).toBe(1); // the replicas started together and still made one
    const [before] = mock.issuedTokens();

    mock.resetCounters();
    mock.expireAllTokens();
    // Uncached sites, so every query calls the upstream with the expired token on both replicas.
    const answers = await Promise.all(sites.slice(10, 50).map((c, i) => fleet!.replica(i).query(SITE, { c })));
    expect(answers.every(succeeded)).toBe(true);
    expect(mock.calls('/oauth/token')).toBe(1);

    // Both replicas use the new token from now on, and the fleet's copy is the new one.
    const [, renewed] = mock.issuedTokens();
    expect(renewed).toBeDefined();
    mock.resetCounters();
    await a.query(SITE, { c: sites[50]! });
    await b.query(SITE, { c: sites[51]! });
    expect(mock.callLog().map((call) => call.authorization)).toEqual([`Bearer ${renewed}`, `Bearer ${renewed}`]);
    const [key] = (await fleet.redis.keys('vg:v1:token:*')).filter((name) => !name.endsWith(':lock'));
    const stored = await fleet.redis.client().get(key!);
    expect(JSON.parse(stored!).value).toBe(renewed);
    expect(renewed).not.toBe(before);
  });

  it('refreshes the token once for the fleet when both replicas reach its refresh point', async () => {
    fleet = await startFleet({ mock: { tokenLifetimeS: 2 }, redis: redis() }); // used up at 1.8 s, expired at 2 s
    const sites = fleet.mock.catalog.sites.map((site) => site.code);
    let next = 0;
    const traffic = () => Promise.all([0, 1, 2, 3].map((i) => fleet!.replica(i).query(SITE, { c: sites[next++]! })));
    expect((await traffic()).every(succeeded)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 1850));
    expect((await traffic()).every(succeeded)).toBe(true); // still the old token, the new one coming
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await traffic()).every(succeeded)).toBe(true); // the old one has expired by now
    expect(fleet.mock.calls('/oauth/token')).toBe(2);
  });

  it('takes the token another replica stored instead of requesting one, and ignores an unreadable one', async () => {
    fleet = await startFleet({ redis: redis() });
    await fleet.a.query(SITE, { c: fleet.mock.catalog.sites[0]!.code });
    const client = fleet.redis.client();
    // The token's key, not its refresh lock's (`…:lock`), whose release A need not have finished.
    const [key] = (await fleet.redis.keys('vg:v1:token:*')).filter((name) => !name.endsWith(':lock'));
    await client.set(key!, 'not a token');
    fleet.mock.resetCounters();

    // B has no token yet: the stored value is no token, so B requests one and stores it.
    expect(succeeded(await fleet.b.query(SITE, { c: fleet.mock.catalog.sites[1]!.code }))).toBe(true);
    expect(fleet.mock.calls('/oauth/token')).toBe(1);
    expect(JSON.parse((await client.get(key!))!).value).toBe(fleet.mock.issuedTokens()[1]);
  });
});

// On one Redis server: what is tested is this process's event loop, not the topology (a Cluster
// client's own slot refresh is also held up by the hold, and is not what this test is about).
describe('slow is not down', () => {
  let replicas: Fleet<TestTopology> | undefined;
  afterEach(async () => {
    await replicas?.close();
    replicas = undefined;
  });

  it('makes no second token request when the event loop is held up 1.5 s around a token expiry (slow is not down)', async () => {
      // Bounds well under the hold: 300 ms, 900 ms for the token's patient commands. Whatever Redis
      // answered meanwhile waits unread in the socket, and must not pass for Redis being down.
      replicas = await startFleet({ env: { REDIS_COMMAND_TIMEOUT_MS: '300' } }); // its own Redis server
      const sites = replicas.mock.catalog.sites.map((site) => site.code);
      expect((await Promise.all(sites.slice(0, 4).map((c, i) => replicas!.replica(i).query(SITE, { c })))).every(succeeded)).toBe(true);
      replicas.mock.resetCounters();
      replicas.mock.expireAllTokens();
      const release = holdAfterWriting((data) => data.includes('vg:v1:token:'), 1500);
      try {
        const answers = await Promise.all(sites.slice(4, 24).map((c, i) => replicas!.replica(i).query(SITE, { c })));
        expect(answers.every(succeeded)).toBe(true);
      } finally {
        release();
      }
      expect(replicas.mock.calls('/oauth/token')).toBe(1);
      for (const replica of [replicas.a, replicas.b]) {
        const metrics = await (await fetch(`${replica.url}/metrics`)).text();
        expect(metrics).not.toMatch(/^gateway_redis_errors_total\{operation="token_\w+"\} [1-9]/m);
      }
    });
});
