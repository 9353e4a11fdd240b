/**
 * The gateway's caching headers as a real shared cache reads them: nginx with `proxy_cache`, as
 * deploy/nginx.conf sets it up (test/helpers/nginx.ts runs that file), keeping what the gateway's
 * `Cache-Control` allows. Requests reaching the gateway are counted by its `graphql request` log
 * lines.
 */
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { startGateway, type Harness } from '../../helpers/gateway.js';
import { requestLines } from '../../helpers/http.js';
import { startCachingProxy, type CachingProxy } from '../../helpers/nginx.js';

const CITIES = `query Cities { cities(pageSize: 2) { items { code } } }`;
const KEY = 'http-caching-proxy-key-0001';

async function get(proxy: CachingProxy, headers: Record<string, string> = {}, search = `query=${encodeURIComponent(CITIES)}`) {
  const response = await fetch(`${proxy.url}/graphql?${search}`, {
    headers: { accept: 'application/json', ...headers },
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as any };
}

describe('the gateway behind a caching proxy', () => {
  let h: Harness;
  let proxy: CachingProxy | undefined;
  afterEach(async () => {
    await proxy?.close();
    proxy = undefined;
    await h.close();
  });

  it('is answered by the proxy for a repeated GET, with no request reaching the gateway until max-age passes', async () => {
    h = await startGateway({ env: { CACHE_TTL_CITIES_S: '2' } });
    proxy = await startCachingProxy(h.url);
    const first = await get(proxy);
    expect(first.headers.get('cache-control')).toBe('public, max-age=2');
    expect(first.headers.get('x-proxy-cache')).toBe('MISS');
    for (let i = 0; i < 3; i++) {
      const repeated = await get(proxy);
      expect(repeated.headers.get('x-proxy-cache')).toBe('HIT');
      expect(repeated.body).toEqual(first.body);
    }
    expect(requestLines(h)).toHaveLength(1);

    // nginx keeps its own time, in whole seconds, so max-age can only pass in real time: 2 s
    // counted from a second boundary may take nearly 3. Ask every 250 ms; a 15 s bound leaves a
    // busy machine room, and the gateway's clock moves too, so its own data is due as well.
    h.clock.advance(3_000);
    const started = Date.now();
    let after = first;
    while (requestLines(h).length === 1 && Date.now() - started < 15_000) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      after = await get(proxy);
    }
    expect(requestLines(h)).toHaveLength(2);
    expect(after.headers.get('x-proxy-cache')).toBe('EXPIRED');
    expect(after.headers.get('cache-control')).toBe('public, max-age=2');
  }, 30_000);

  it('caches a GET by persisted-query hash once the gateway knows the hash, and never its not-found answer', async () => {
    h = await startGateway();
    proxy = await startCachingProxy(h.url);
    const sha256Hash = createHash('sha256').update(CITIES).digest('hex');
    const extensions = JSON.stringify({ persistedQuery: { version: 1, sha256Hash } });
    const byHash = `extensions=${encodeURIComponent(extensions)}`;
    const unknown = await get(proxy, {}, byHash);
    expect(unknown.body.errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
    expect(unknown.headers.get('cache-control')).toBe('no-store');

    const registered = await get(proxy, {}, `${byHash}&query=${encodeURIComponent(CITIES)}`);
    expect(registered.body.data.cities.items).toHaveLength(2);
    const first = await get(proxy, {}, byHash);
    expect(first.headers.get('x-proxy-cache')).toBe('MISS');
    expect(first.body).toEqual(registered.body);
    const again = await get(proxy, {}, byHash);
    expect(again.headers.get('x-proxy-cache')).toBe('HIT');
    expect(requestLines(h)).toHaveLength(3);
  });

  it('never caches an answer with errors', async () => {
    h = await startGateway({ env: { UPSTREAM_RETRIES: '0' } });
    proxy = await startCachingProxy(h.url);
    h.mock.fault('/api/city/list', 'http503');
    for (let i = 1; i <= 3; i++) {
      const failed = await get(proxy);
      expect(failed.status).toBe(200);
      expect(failed.body.errors).toBeDefined();
      // The shipped config keeps only what Cache-Control allows: no-store is what keeps this out.
      expect(failed.headers.get('cache-control')).toBe('no-store');
      expect(failed.headers.get('x-proxy-cache')).toBe('MISS');
      expect(requestLines(h)).toHaveLength(i);
    }
  });

  it('caches nothing when API keys are set, answers nor refusals', async () => {
    h = await startGateway({ env: { GATEWAY_API_KEYS: KEY } });
    proxy = await startCachingProxy(h.url);
    for (let i = 1; i <= 2; i++) {
      const ok = await get(proxy, { 'x-api-key': KEY });
      expect(ok.body.data.cities.items).toHaveLength(2);
      expect(ok.headers.get('cache-control')).toMatch(/^private, max-age=\d+$/);
      expect(ok.headers.get('x-proxy-cache')).toBe('MISS');
      const refused = await get(proxy);
      expect(refused.status).toBe(401);
      expect(refused.headers.get('x-proxy-cache')).toBe('MISS');
      expect(requestLines(h)).toHaveLength(2 * i);
    }
  });
});
