/**
 * One rate limit for the fleet: with Redis, `RATE_LIMIT_PER_MINUTE` holds for a client across
 * every replica (one token bucket per client in Redis), for POSTs and GETs alike, and
 * each replica limits on its own again while Redis is down. `X-Forwarded-For` names the client
 * only with `TRUST_PROXY`.
 *
 * Most tests give the replicas one frozen wall clock, which the buckets in Redis then read instead
 * of Redis's: no token comes back while a slow run goes on, so the counts are exact. The test of
 * Redis's own clock bounds what may come back by the time it took.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Harness } from '../../helpers/gateway.js';
import { get, metric, post, requestLines, scrape, type HttpAnswer } from '../../helpers/http.js';
import { post as postRaw } from '../../helpers/raw-http.js';
import { readiness, startFleet, until, type Fleet } from './fleet.js';

const CITIES = '{ cities { total } }';
/**
 * A Redis command the fleet's bound does not answer counts as Redis down, and the replica's own
 * bucket decides: on a busy machine, 2 s (fleet.ts) could come to pass and spoil an exact count.
 */
const PATIENT = { REDIS_COMMAND_TIMEOUT_MS: '10000' };
const NOW = 1_700_000_000_000;
const frozen = () => NOW;

function statusCounts(answers: Array<{ status: number }>): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const { status } of answers) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

/** A GET of `query`. */
function getQuery(h: Harness, query: string): Promise<HttpAnswer> {
  return get(h, `/graphql?query=${encodeURIComponent(query)}`, { accept: 'application/graphql-response+json' });
}

async function sum(fleet: Fleet, name: string, labels: Record<string, string>): Promise<number> {
  const texts = await Promise.all(fleet.all.map((replica) => scrape(replica)));
  return texts.reduce((total, text) => total + metric(text, name, labels), 0);
}

describe('the rate limit of a fleet', () => {
  let fleet: Fleet | undefined;
  afterEach(async () => {
    await fleet?.close();
    fleet = undefined;
  });

  it('answers 60 of 90 requests in all when one client spreads them over 3 replicas at 60 per minute', async () => {
    fleet = await startFleet({ replicas: 3, env: { ...PATIENT, RATE_LIMIT_PER_MINUTE: '60' }, wallClock: frozen });
    // All at once: the replicas take from one bucket concurrently.
    const answers = await Promise.all(Array.from({ length: 90 }, (_, i) => post(fleet!.replica(i), CITIES)));

    expect(statusCounts(answers)).toEqual({ 200: 60, 429: 30 });
    for (const refused of answers.filter((answer) => answer.status === 429)) {
      // 60 per minute: the next token in 1 s.
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(refused.body).toEqual({ errors: [{ message: expect.stringContaining('at most 60 per minute'), extensions: { code: 'RATE_LIMITED' } }] });
    }
    // The refusals were logged and counted.
    expect(await sum(fleet, 'gateway_rejected_requests_total', { reason: 'rate_limited' })).toBe(30);
    const lines = fleet.all.flatMap((replica) => requestLines(replica));
    expect(statusCounts(lines)).toEqual({ 200: 60, 429: 30 });
    expect(lines.filter((line) => line.status === 429).every((line) => line.errorCodes.includes('RATE_LIMITED'))).toBe(true);
  });

  it("keeps the bucket on Redis's clock, for GETs as for POSTs", async () => {
    fleet = await startFleet({ replicas: 3, env: { ...PATIENT, RATE_LIMIT_PER_MINUTE: '3' } });
    const started = Date.now();
    const statuses: number[] = [];
    for (let i = 0; i < 9; i += 1) {
      const replica = fleet.replica(i);
      statuses.push((i % 2 === 0 ? await getQuery(replica, CITIES) : await post(replica, CITIES)).status);
    }
    // 3 per minute come back one every 20 s: however slow the run, no more than that many.
    const cameBack = Math.floor((Date.now() - started) / 20_000);
    const answered = statuses.filter((status) => status === 200).length;
    expect(statuses.slice(0, 3)).toEqual([200, 200, 200]);
    expect(answered).toBeLessThanOrEqual(3 + cameBack);
    expect(statuses.filter((status) => status !== 200 && status !== 429)).toEqual([]);

    const redis = fleet.redis.client();
    const keys = await redis.keys('vg:v1:ratelimit:*');
    expect(keys).toHaveLength(1);
    // The key lives until the bucket is full again: at most the minute it takes to refill.
    const ttl = await redis.pttl(keys[0]!);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60_000);
  });

  it("counts a batch's operations in the fleet's bucket, all or none", async () => {
    fleet = await startFleet({ replicas: 3, env: { ...PATIENT, RATE_LIMIT_PER_MINUTE: '6', BATCHING_LIMIT: '5' }, wallClock: frozen });
    const batch = (n: number) => Array.from({ length: n }, (_, i) => ({ query: `{ cities(pageSize: ${i + 1}) { total } }` }));
    expect((await postRaw(fleet.a, batch(5))).status).toBe(200);
    // Its arrival takes the sixth token; its second operation does not fit: refused whole.
    const refused = await postRaw(fleet.b, batch(2));
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('10');
    expect(refused.body.errors[0]).toEqual({ message: expect.stringContaining('a batch of 2 operations'), extensions: { code: 'RATE_LIMITED' } });
    expect((await post(fleet.all[2]!, CITIES)).status).toBe(429);
  });

  it('limits on each replica alone while Redis is down, failing nothing, and on the fleet again once it is back', async () => {
    fleet = await startFleet({ replicas: 3, env: { ...PATIENT, RATE_LIMIT_PER_MINUTE: '2' }, wallClock: frozen });
    const round = async () => {
      const statuses: number[][] = fleet!.all.map(() => []);
      for (let i = 0; i < 9; i += 1) statuses[i % 3]!.push((await post(fleet!.replica(i), CITIES)).status);
      return statuses;
    };
    const allSay = (state: string) => until(async () => (await Promise.all(fleet!.all.map(readiness))).every((r) => r.body.redis === state), 30_000);
    const shared = [[200, 429, 429], [200, 429, 429], [429, 429, 429]];
    expect(await round()).toEqual(shared);

    await fleet.redis.stop();
    await allSay('down');
    // Each replica's own bucket, untouched while Redis decided: 2 each.
    expect(await round()).toEqual([[200, 200, 429], [200, 200, 429], [200, 200, 429]]);

    await fleet.redis.start(); // empty: every bucket full
    await allSay('up');
    expect(await round()).toEqual(shared);
  });

  it('lets the replica decide alone when the command fails, counting it as rate_limit', async () => {
    fleet = await startFleet({ env: { ...PATIENT, RATE_LIMIT_PER_MINUTE: '2' }, wallClock: frozen });
    expect((await post(fleet.a, CITIES)).status).toBe(200);
    const redis = fleet.redis.client();
    const [key] = await redis.keys('vg:v1:ratelimit:*');
    await redis.del(key!);
    await redis.hset(key!, 'not', 'a bucket'); // every script on it now fails (WRONGTYPE)

    const statuses = [];
    for (let i = 0; i < 3; i += 1) statuses.push((await post(fleet.a, CITIES)).status);
    expect(statuses).toEqual([200, 200, 429]);
    expect(metric(await scrape(fleet.a), 'gateway_redis_errors_total', { operation: 'rate_limit' })).toBe(3);
    expect((await readiness(fleet.a)).body.redis).toBe('up');
  });

  const ONE_SOCKET_IS_TWO_CLIENTS = 'gives each X-Forwarded-For client its own budget';
  const ONE_SOCKET_IS_ONE_CLIENT = 'ignores X-Forwarded-For: one budget for the socket';
  it.each([
    ['unset', ONE_SOCKET_IS_ONE_CLIENT, undefined],
    ['1', ONE_SOCKET_IS_TWO_CLIENTS, '1'],
    ['a list holding 127.0.0.1', ONE_SOCKET_IS_TWO_CLIENTS, '10.0.0.0/8,127.0.0.1,fd00::/8'],
    ['a list without the socket\'s address', ONE_SOCKET_IS_ONE_CLIENT, '10.0.0.0/8,::1'],
  ])('with TRUST_PROXY %s, %s', async (_name, expected, trust) => {
    fleet = await startFleet({ replicas: 3, env: { ...PATIENT, RATE_LIMIT_PER_MINUTE: '1', ...(trust ? { TRUST_PROXY: trust } : {}) }, wallClock: frozen });
    const from = (forwardedFor: string) => ({ headers: { 'x-forwarded-for': forwardedFor } });
    expect((await post(fleet.replica(0), CITIES, from('203.0.113.1'))).status).toBe(200);
    const other = await post(fleet.replica(1), CITIES, from('203.0.113.2'));
    expect(other.status).toBe(expected === ONE_SOCKET_IS_TWO_CLIENTS ? 200 : 429);
    expect((await post(fleet.replica(2), CITIES, from('203.0.113.1'))).status).toBe(429);
    // A client that writes the header itself only adds entries the trusted proxy's is read before.
    expect((await post(fleet.replica(3), CITIES, from('198.51.100.9, 203.0.113.1'))).status).toBe(429);
  });
});
