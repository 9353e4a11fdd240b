import { afterEach, describe, expect, it } from 'vitest';
import { metric } from '../../helpers/http.js';
import { readiness, startFleet, type Fleet } from './fleet.js';

const SITE = 'query ($c: String!) { site(code: $c) { code name address points { code } } }';

/** What might be found under a key: garbage, another program's data, a cut or foreign format. */
const TAMPERINGS: Array<[string, (key: string, fleet: Fleet) => Promise<unknown>]> = [
  ['plain garbage', (key, f) => f.redis.client().set(key, 'not an entry')],
  ['JSON of another shape', (key, f) => f.redis.client().set(key, Buffer.concat([Buffer.of(1), Buffer.from('{"hello":"world"}')]))],
  ['a cut JSON entry', (key, f) => f.redis.client().set(key, Buffer.concat([Buffer.of(1), Buffer.from('{"t":1,"l":30000,"v":{"co')]))],
  ['bytes that do not inflate', (key, f) => f.redis.client().set(key, Buffer.concat([Buffer.of(2), Buffer.from('xxxxxxxx')]))],
  ['an entry with a negative TTL', (key, f) => f.redis.client().set(key, Buffer.concat([Buffer.of(1), Buffer.from('{"t":1,"l":-5,"v":null}')]))],
  ['a hash instead of a string', async (key, f) => {
    await f.redis.client().del(key);
    return f.redis.client().hset(key, 'v', '1');
  }],
];

describe('values in Redis that are not entries', () => {
  let fleet: Fleet | undefined;
  afterEach(async () => {
    await fleet?.close();
    fleet = undefined;
  });

  it('ignores a corrupt or foreign value under a key and fetches it again, never failing', async () => {
    // The data entries are what is tampered with: B must execute, not take A's shared answer
    // (response-cache.test.ts tampers with those).
    fleet = await startFleet({ env: { RESPONSE_CACHE_MAX_BYTES: '0' } });
    const { a, b, mock } = fleet;
    for (const [i, [kind, tamper]] of TAMPERINGS.entries()) {
      const code = mock.catalog.sites[i]!.code;
      const stored = await a.query(SITE, { c: code });
      const [key] = await fleet.redis.client().keys(`vg:v1:cache:*:{site:${code}}`);
      expect(key, kind).toBeDefined();
      await tamper(key!, fleet);

      mock.resetCounters();
      const answer = await b.query(SITE, { c: code });
      expect(answer, kind).toEqual(stored);
      expect(mock.calls('/api/site/detail'), kind).toBe(1);
      // B stored a readable entry again.
      const bytes = await fleet.redis.client().getBuffer(key!);
      expect([1, 2], kind).toContain(bytes?.[0]);
    }
    expect((await readiness(b)).body.redis).toBe('up');
    const metrics = await (await fetch(`${b.url}/metrics`)).text();
    // Counted, not hidden: five unreadable values, and the hash that GET refuses.
    expect(metric(metrics, 'gateway_redis_errors_total', { operation: 'cache_decode' })).toBeGreaterThanOrEqual(5);
    expect(metric(metrics, 'gateway_redis_errors_total', { operation: 'cache_read' })).toBeGreaterThanOrEqual(1);
  });
});
