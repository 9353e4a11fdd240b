/**
 * The product as a newcomer meets it: `npm start` with nothing configured.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { afterAll, describe, expect, it } from 'vitest';
import { EXAMPLE_QUERY } from '../../../src/pages/explorer/example-query.js';
import { metric, until } from '../../helpers/http.js';
import { addressOf, freshEnv } from '../../helpers/process.js';

const ROOT = new URL('../../..', import.meta.url).pathname;

describe('demo mode', () => {
  const children: ChildProcess[] = [];
  afterAll(() => children.forEach((child) => child.exitCode === null && child.kill('SIGKILL')));
  // The first test builds dist/ (npm start does); the others run it directly.

  it('npm start with nothing configured serves the example query from the built-in mock upstream', async () => {
    const child = spawn('npm', ['start', '--silent'], {
      cwd: ROOT,
      env: freshEnv(),
      stdio: ['ignore', 'pipe', 'inherit'],
      detached: true,
    });
    children.push(child);
    const graphql = await addressOf(child);

    const response = await fetch(graphql, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: EXAMPLE_QUERY }),
    });
    const { data, errors } = (await response.json()) as any;
    expect(errors).toBeUndefined();
    expect(data.sites.items).toHaveLength(3);
    const lane = data.sites.items[0].points[0].cargoLanes.find((l: any) => l.product);
    expect(lane.product.productName).toEqual(expect.any(String));
    expect(data.sites.items[0].city.name).toEqual(expect.any(String));

    const page = await fetch(graphql, { headers: { accept: 'text/html' } });
    expect(await page.text()).toContain('SitesWithProducts');
    const health = await fetch(graphql.replace('/graphql', '/healthz'));
    expect(await health.json()).toEqual({ status: 'ok' });
    const ready = await fetch(graphql.replace('/graphql', '/readyz'));
    expect(ready.status).toBe(200);
    // The example client page, built by npm start's build, and the index behind it.
    const demoPage = await fetch(graphql.replace('/graphql', '/demo/'));
    expect(demoPage.status).toBe(200);
    expect(await demoPage.text()).toContain('<script type="module"');
    const near = await fetch(graphql, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ city(code: "SH") { sites(pageSize: 3) { total items { name isOpen } } } }' }),
    });
    const { data: city } = (await near.json()) as any;
    expect(city.city.sites.total).toBeGreaterThan(0);

    process.kill(-child.pid!, 'SIGTERM');
    await once(child, 'exit');
  }, 90_000);

  /** Runs the built entry point (dist/main.js) with `env` on a clean environment. */
  function runBuilt(env: Record<string, string>): ChildProcess {
    const child = spawn(process.execPath, ['dist/main.js'], { cwd: ROOT, env: freshEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    return child;
  }

  it('stops cleanly on SIGTERM, exiting 0', async () => {
    const child = runBuilt({ PORT: '0', HOST: '127.0.0.1', DEMO_LATENCY_MS: '0' });
    const graphql = await addressOf(child);
    expect((await fetch(graphql.replace('/graphql', '/healthz'))).status).toBe(200);
    child.kill('SIGTERM');
    const [code] = await once(child, 'exit');
    expect(code).toBe(0);
  });

  it('lets 100 in-flight requests finish on SIGTERM (upstream latency 2 s), then exits 0', async () => {
    const child = runBuilt({ PORT: '0', HOST: '127.0.0.1', DEMO_LATENCY_MS: '2000' });
    const graphql = await addressOf(child);
    const ask = async (query: string) => {
      const response = await fetch(graphql, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query }),
      });
      return (await response.json()) as any;
    };
    await ask(`{ cities(pageSize: 1) { total } }`); // the token, fetched before the rush
    const queries = [
      ...Array.from({ length: 60 }, (_, i) => `{ site(code: "S${String(i + 1).padStart(6, '0')}") { code } }`),
      ...Array.from({ length: 40 }, (_, i) => `{ product(goodsCode: "G${String(i + 1).padStart(5, '0')}") { goodsCode } }`),
    ];
    const metrics = graphql.replace(/\/graphql$/, '/metrics');
    const misses = async () => {
      const text = await (await fetch(metrics)).text();
      return ['site', 'product'].reduce((sum, kind) => sum + metric(text, 'gateway_cache_lookups_total', { kind, result: 'miss' }), 0);
    };
    const missesBefore = await misses();
    const answers = Promise.all(queries.map(ask));
    // SIGTERM once all 100 have reached the gateway (a connection whose request has not arrived
    // yet is idle, and closed at SIGTERM): each has then looked its data up and missed. That is
    // well short of their answers (2 s later), however busy the machine.
    await until(async () => (await misses()) >= missesBefore + 100, 30_000);
    child.kill('SIGTERM');
    const results = await answers;
    expect(results.filter((r) => r.errors !== undefined || r.data === null)).toEqual([]);
    expect(results.filter((r) => r.data.site?.code ?? r.data.product?.goodsCode)).toHaveLength(100);
    const [code] = await once(child, 'exit');
    expect(code).toBe(0);
  }, 60_000);

  it('refuses to start on bad configuration, naming every bad variable', async () => {
    const child = runBuilt({ PORT: 'abc', UPSTREAM_BASE_URL: 'nope', OAUTH_CLIENT_AUTH: 'digest' });
    let stderr = '';
    child.stderr!.on('data', (chunk) => (stderr += String(chunk)));
    const [code] = await once(child, 'exit');
    expect(code).toBe(1);
    for (const name of ['PORT', 'UPSTREAM_BASE_URL', 'OAUTH_CLIENT_AUTH']) expect(stderr).toContain(name);
  });
});
