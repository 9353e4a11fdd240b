/**
 * A purge reaches the whole fleet (docs "Purging"): taken by replica A, it deletes the shared
 * answers and data in a real Redis and is heard by replica B, which drops its own copies, so B's
 * next request for the purged site costs exactly that site's upstream call while B's other answers
 * are still hits. B counts and logs what it heard. A list's purge finds its pages in Redis by a scan.
 * A purge Redis could not carry out says so (503), never 200.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Harness } from '../../helpers/gateway.js';
import { logEntries, metric, post, scrape } from '../../helpers/http.js';
import { startFleet, until, type Fleet } from './fleet.js';

const ADMIN_KEY = 'fleet-purge-admin-key-0001';
const SITE = 'query Site($c: String!) { site(code: $c) { code name } }';
const SITES = '{ sites(pageSize: 5) { items { code name } } }';

function purge(h: Harness, tags: string[]) {
  return fetch(`${h.url}/admin/purge`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': ADMIN_KEY },
    body: JSON.stringify({ tags }),
  }).then(async (response) => ({ status: response.status, body: await response.json() }));
}

const upstreamPaths = (fleet: Fleet) => fleet.mock.callLog().filter((entry) => entry.path !== '/oauth/token').map((entry) => entry.path);

describe('a purge on one replica', () => {
  let fleet: Fleet | undefined;
  afterEach(async () => {
    await fleet?.close();
    fleet = undefined;
  });

  it("drops replica B's answer and the shared data: B's next request costs exactly the purged site's call", async () => {
    fleet = await startFleet({ env: { ADMIN_API_KEYS: ADMIN_KEY } });
    const { a, b, mock, redis } = fleet;
    const [one, two] = mock.catalog.sites.map((site) => site.code);
    const ask = (h: Harness, code: string) => post(h, SITE, { variables: { c: code } });
    const made = await ask(b, one!);
    await ask(b, two!);
    // Both answers shared (the writes do not hold up B's answers), both hits on B now.
    await until(async () => (await redis.client().keys('vg:v1:answer:*')).length === 2);
    for (const code of [one!, two!]) expect((await ask(b, code)).headers.get('x-cache')).toBe('hit');

    mock.resetCounters();
    // A held nothing itself: what it dropped is Redis's copies (the answer, the site's entry).
    expect(await purge(a, [`site:${one}`])).toEqual({ status: 200, body: { purged: 2 } });
    expect(await redis.client().keys('vg:v1:answer:*')).toHaveLength(1);
    await until(async () => metric(await scrape(b), 'gateway_purges_total', { origin: 'fleet' }) === 1);

    const again = await ask(b, one!);
    expect([again.headers.get('x-cache'), again.text]).toEqual(['miss', made.text]);
    expect(upstreamPaths(fleet)).toEqual(['/api/site/detail']);
    expect((await ask(b, two!)).headers.get('x-cache')).toBe('hit');
    expect(upstreamPaths(fleet)).toHaveLength(1);

    const text = await scrape(b);
    expect(metric(text, 'gateway_purged_entries_total', { cache: 'response' })).toBe(1);
    expect(metric(text, 'gateway_purged_entries_total', { cache: 'data' })).toBe(1);
    expect(metric(await scrape(a), 'gateway_purges_total', { origin: 'request' })).toBe(1);
    const heard = logEntries(b).filter((entry) => entry.msg === 'purge heard from another replica');
    expect(heard.map(({ tags, purged }) => ({ tags, purged }))).toEqual([{ tags: [`site:${one}`], purged: 2 }]);
  });

  it("drops a list's pages from Redis (found by a scan) and from every replica, and leaves its entities' answers", async () => {
    fleet = await startFleet({ env: { ADMIN_API_KEYS: ADMIN_KEY } });
    const { a, b, mock, redis } = fleet;
    const site = mock.catalog.sites[0]!.code;
    await post(b, SITES);
    await post(b, SITE, { variables: { c: site } });
    const pages = () => redis.client().keys('vg:v1:cache:*{sites:*');
    await until(async () => (await pages()).length === 1 && (await redis.client().keys('vg:v1:answer:*')).length === 2);

    mock.resetCounters();
    expect(await purge(a, ['sites'])).toEqual({ status: 200, body: { purged: 2 } });
    expect(await pages()).toEqual([]);
    await until(async () => metric(await scrape(b), 'gateway_purges_total', { origin: 'fleet' }) === 1);
    expect((await post(b, SITES)).headers.get('x-cache')).toBe('miss');
    expect(upstreamPaths(fleet)).toEqual(['/api/site/list']);
    expect((await post(b, SITE, { variables: { c: site } })).headers.get('x-cache')).toBe('hit');
    expect(upstreamPaths(fleet)).toHaveLength(1);
  });

  it('answers 503 PURGE_INCOMPLETE when Redis cannot carry out its share, after dropping what it could here', async () => {
    fleet = await startFleet({ env: { ADMIN_API_KEYS: ADMIN_KEY, REDIS_COMMAND_TIMEOUT_MS: '200' } });
    const { a, mock, redis } = fleet;
    const site = mock.catalog.sites[0]!.code;
    const ask = () => post(a, SITE, { variables: { c: site } });
    await ask();
    expect((await ask()).headers.get('x-cache')).toBe('hit');
    await redis.stop();

    const answer = await purge(a, [`site:${site}`]);
    expect([answer.status, answer.body.errors?.[0]?.extensions?.code]).toEqual([503, 'PURGE_INCOMPLETE']);
    expect(logEntries(a).filter((entry) => entry.msg === 'purge incomplete: copies may remain until their TTL')).toHaveLength(1);
    // This replica's own copies went all the same: its next answer is made again.
    mock.resetCounters();
    expect((await ask()).headers.get('x-cache')).toBe('miss');
    expect(upstreamPaths(fleet)).toEqual(['/api/site/detail']);
  });
});
