/**
 * Everything the gateway speaks passes the shipped deploy/nginx.conf (test/helpers/nginx.ts runs
 * that file): a graphql-ws subscription upgrades through it and receives, a server-sent events
 * stream stays open past a minute of silence, and a compressed answer is cached per coding
 * (never served to a client that did not ask for it). Live events come from poll rounds run by
 * hand (`gateway.live.poller.pollNow`), as in test/e2e/live/.
 */
import { request } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startGateway, type Harness } from '../../helpers/gateway.js';
import { requestLines } from '../../helpers/http.js';
import { startCachingProxy, type CachingProxy } from '../../helpers/nginx.js';
import { subscribeSse, type SseSubscriber } from '../../helpers/sse.js';
import { subscribeWs, type WsSubscriber } from '../../helpers/websocket.js';
import { SITE_DEFERRED } from './incremental-queries.js';

const SITE_STOCK = 'subscription Live($code: String!) { siteStock(code: $code) { code points { code cargoLanes { goodsCode stock } } } }';
/** An answer well above COMPRESSION_MIN_BYTES (its default is 1 KiB; this is about 4 KB). */
const SITES = 'query Sites { sites(pageSize: 50) { items { code name city { code name } } } }';
// Poll rounds run only when a test asks.
const ENV = { LIVE_POLL_S: '3600' };
/** nginx's default proxy_read_timeout and send_timeout, and twice the 20 s of the old file. */
const SILENCE_MS = 65_000;

// Private: the stock of the first lane of the first point in a siteStock event.
const firstLaneStock = (event: { data?: any }) => event.data.siteStock.points[0].cargoLanes[0].stock as number;

/** A GET's status, headers and raw body bytes: fetch would decode the body and hide the coding. */
function rawGet(url: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    request(url, { headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body: Buffer.concat(chunks) }));
      response.on('error', reject);
    }).on('error', reject).end();
  });
}

// Private: fails a test whose subscription ended before its first event.
function endedEarly(end: unknown): never {
  throw new Error(`the subscription ended before its first event: ${JSON.stringify(end)}`);
}

const sitesUrl = (base: string) => `${base}/graphql?query=${encodeURIComponent(SITES)}`;

describe('the shipped nginx configuration', () => {
  let h: Harness;
  let proxy: CachingProxy | undefined;
  const closers: Array<() => unknown> = [];
  afterEach(async () => {
    vi.useRealTimers();
    for (const close of closers.splice(0)) await close();
    await proxy?.close();
    proxy = undefined;
    await h.close();
  });

  it('upgrades a graphql-ws subscription through to the gateway, which then sends it a change of stock', async () => {
    h = await startGateway({ env: ENV });
    proxy = await startCachingProxy(h.url);
    const site = h.mock.catalog.sites[0]!;
    const subscriber: WsSubscriber = subscribeWs(`${proxy.url.replace(/^http/, 'ws')}/graphql`, SITE_STOCK, { code: site.code });
    closers.push(() => subscriber.close());
    const first = await Promise.race([subscriber.received(1).then(([event]) => event!), subscriber.ended.then(endedEarly)]);
    expect(first.data.siteStock.code).toBe(site.code);
    expect(h.websocket.connections).toBe(1);

    const stock = firstLaneStock(first) + 5;
    h.mock.setStock(site.code, site.points[0]!.code, 0, stock);
    await h.gateway.live.poller.pollNow();
    const events = await subscriber.received(2);
    expect(firstLaneStock(events[1]!)).toBe(stock);
  });

  // Yoga pings a stream every 12 s (every 300 ms under NODE_ENV=test) with setInterval: faked
  // here, so that no byte passes for 65 s and only nginx's timeouts decide whether the stream
  // lives. The wait is real time (setTimeout is not faked): nginx's own clock is the one tested.
  it('keeps a server-sent events stream open through 65 s of silence, and delivers the event that comes after', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    h = await startGateway({ env: ENV });
    proxy = await startCachingProxy(h.url);
    const site = h.mock.catalog.sites[0]!;
    const subscriber: SseSubscriber = subscribeSse(proxy.url, SITE_STOCK, { code: site.code });
    closers.push(() => subscriber.close());
    const [first] = await subscriber.received(1);
    expect(await subscriber.status).toBe(200);

    const silence = new Promise<'silent'>((resolve) => setTimeout(() => resolve('silent'), SILENCE_MS));
    const outcome = await Promise.race([silence, subscriber.ended.then((completed) => ({ endedEarly: completed }))]);
    expect(outcome).toBe('silent');

    const stock = firstLaneStock(first!) + 3;
    h.mock.setStock(site.code, site.points[0]!.code, 0, stock);
    await h.gateway.live.poller.pollNow();
    const events = await subscriber.received(2);
    expect(firstLaneStock(events[1]!)).toBe(stock);
  }, SILENCE_MS + 60_000);

  it('tells nginx not to buffer answers in parts (server-sent events, multipart), which nginx takes for itself, and whole answers not', async () => {
    h = await startGateway({ env: ENV });
    proxy = await startCachingProxy(h.url);
    const code = h.mock.catalog.sites[0]!.code;
    const sse = { query: SITE_STOCK, accept: 'text/event-stream' };
    const deferred = { query: SITE_DEFERRED, accept: 'multipart/mixed' };
    const whole = { query: SITES, accept: 'application/json' };
    const header = async (base: string, { query, accept }: typeof sse) => {
      const controller = new AbortController();
      const response = await fetch(`${base}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept },
        body: JSON.stringify({ query, variables: { code, c: code } }),
        signal: controller.signal,
      });
      expect(response.headers.get('content-type'), accept).toContain(accept);
      controller.abort();
      return response.headers.get('x-accel-buffering');
    };
    expect([await header(h.url, sse), await header(h.url, deferred), await header(h.url, whole)]).toEqual(['no', 'no', null]);
    expect([await header(proxy.url, sse), await header(proxy.url, deferred)]).toEqual([null, null]);
  });

  it('caches a br answer once per coding, and gives an identity client identity bytes from the same cache', async () => {
    h = await startGateway();
    proxy = await startCachingProxy(h.url);
    const url = sitesUrl(proxy.url);
    const br = { accept: 'application/json', 'accept-encoding': 'gzip, deflate, br' };
    const miss = await rawGet(url, br);
    expect(miss.status).toBe(200);
    expect([miss.headers['x-proxy-cache'], miss.headers['content-encoding']]).toEqual(['MISS', 'br']);
    expect(String(miss.headers.vary)).toMatch(/accept-encoding/i);
    const hit = await rawGet(url, br);
    expect([hit.headers['x-proxy-cache'], hit.headers['content-encoding']]).toEqual(['HIT', 'br']);
    const data = JSON.parse(brotliDecompressSync(miss.body).toString());
    expect(data.data.sites.items.length).toBeGreaterThan(20);
    expect(JSON.parse(brotliDecompressSync(hit.body).toString())).toEqual(data);
    expect(requestLines(h)).toHaveLength(1);

    // The client's Accept-Encoding reaches the gateway as sent: its q-values choose the coding.
    const weighed = await rawGet(url, { accept: 'application/json', 'accept-encoding': 'br;q=0.1, gzip' });
    expect(weighed.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(gunzipSync(weighed.body).toString())).toEqual(data);

    for (const identity of [{}, { 'accept-encoding': 'identity' }, { 'accept-encoding': 'gzip;q=0, br;q=0' }] as Array<Record<string, string>>) {
      const plain = await rawGet(url, { accept: 'application/json', ...identity });
      expect(plain.headers['content-encoding'], JSON.stringify(identity)).toBeUndefined();
      expect(JSON.parse(plain.body.toString())).toEqual(data);
    }
  });
});
