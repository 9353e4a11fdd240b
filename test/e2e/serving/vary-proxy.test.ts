/**
 * Through the shipped deploy/nginx.conf (test/helpers/nginx.ts runs that file), a browser's
 * `Origin` does not let one client's coding reach another: after a request with `Origin` and
 * `Accept-Encoding: zstd`, a browser of the same origin offering only `gzip, deflate, br`, and a
 * client offering no coding, each gets a body it can read. The gateway answers the first from its
 * response cache (a stored answer), which is where `Vary: Accept-Encoding` used to be lost to
 * CORS's `Vary: Origin`; a GraphiQL asset (public for a year) is asked the same way.
 */
import { request } from 'node:http';
import { brotliDecompressSync, gunzipSync, zstdDecompressSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { startGateway, type Harness } from '../../helpers/gateway.js';
import { startCachingProxy, type CachingProxy } from '../../helpers/nginx.js';

/** About 4 KB of JSON: compressed (COMPRESSION_MIN_BYTES is 1 KiB by default). */
const SITES = 'query Sites { sites(pageSize: 50) { items { code name city { code name } } } }';
const ORIGIN = 'https://shop.example';
const DECODE: Record<string, (bytes: Buffer) => Buffer> = { br: brotliDecompressSync, gzip: gunzipSync, zstd: zstdDecompressSync };

interface Wire {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** A GET as it crosses the wire: node:http decodes nothing. */
function rawGet(url: string, headers: Record<string, string>): Promise<Wire> {
  return new Promise((resolve, reject) => {
    request(url, { headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body: Buffer.concat(chunks) }));
      response.on('error', reject);
    }).on('error', reject).end();
  });
}

/** The body as the client reads it: decoded from the coding it says it is in, which must be one the client offered. */
function readable(answer: Wire, offered: readonly string[]): Buffer {
  const coding = answer.headers['content-encoding'] as string | undefined;
  if (coding === undefined) return answer.body;
  expect(offered, `sent ${coding} to a client offering ${offered.join(', ') || 'nothing'}`).toContain(coding);
  return DECODE[coding]!(answer.body);
}

describe('Vary through the shipped nginx configuration, with Origin', () => {
  let h: Harness;
  let proxy: CachingProxy | undefined;
  afterEach(async () => {
    await proxy?.close();
    proxy = undefined;
    await h.close();
  });

  it('gives a browser without zstd, and a client without any coding, a readable answer after a zstd one was cached for the same origin', async () => {
    h = await startGateway();
    proxy = await startCachingProxy(h.url);
    const path = `/graphql?query=${encodeURIComponent(SITES)}`;
    // Stored by the gateway first: what nginx then gets is the response cache's hit.
    const stored = await rawGet(`${h.url}${path}`, { accept: 'application/json' });
    const data = JSON.parse(stored.body.toString());
    expect(data.data.sites.items.length).toBeGreaterThan(20);

    const asked = { accept: 'application/json', origin: ORIGIN };
    const zstd = await rawGet(`${proxy.url}${path}`, { ...asked, 'accept-encoding': 'zstd' });
    expect([zstd.headers['x-proxy-cache'], zstd.headers['x-cache'], zstd.headers['content-encoding']]).toEqual(['MISS', 'hit', 'zstd']);
    expect(JSON.parse(readable(zstd, ['zstd']).toString())).toEqual(data);

    const browser = await rawGet(`${proxy.url}${path}`, { ...asked, 'accept-encoding': 'gzip, deflate, br' });
    expect(JSON.parse(readable(browser, ['gzip', 'deflate', 'br']).toString())).toEqual(data);
    const plain = await rawGet(`${proxy.url}${path}`, asked);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(plain.body.toString())).toEqual(data);
    expect(String(zstd.headers.vary)).toMatch(/accept-encoding/i);
    // Each variant once from the gateway, then from nginx's cache.
    const again = await rawGet(`${proxy.url}${path}`, { ...asked, 'accept-encoding': 'gzip, deflate, br' });
    expect([again.headers['x-proxy-cache'], again.headers['content-encoding']]).toEqual(['HIT', browser.headers['content-encoding']]);
  });

  it('gives the same browsers a readable GraphiQL style sheet after a zstd one was cached for the same origin', async () => {
    h = await startGateway();
    proxy = await startCachingProxy(h.url);
    const shell = await rawGet(`${h.url}/graphql`, { accept: 'text/html' });
    const sheet = /href="([^"]+\.css)"/.exec(shell.body.toString())![1]!;
    const identity = (await rawGet(`${h.url}${sheet}`, {})).body;

    const zstd = await rawGet(`${proxy.url}${sheet}`, { origin: ORIGIN, 'accept-encoding': 'zstd' });
    expect([zstd.headers['x-proxy-cache'], zstd.headers['content-encoding'], zstd.headers['cache-control']]).toEqual(['MISS', 'zstd', 'public, max-age=31536000, immutable']);
    expect(readable(zstd, ['zstd']).equals(identity)).toBe(true);
    const browser = await rawGet(`${proxy.url}${sheet}`, { origin: ORIGIN, 'accept-encoding': 'gzip, deflate, br' });
    expect(readable(browser, ['gzip', 'deflate', 'br']).equals(identity)).toBe(true);
    const plain = await rawGet(`${proxy.url}${sheet}`, { origin: ORIGIN });
    expect([plain.headers['content-encoding'], plain.body.equals(identity)]).toEqual([undefined, true]);
  });
});
