/**
 * The example page's files over plain HTTP (src/pages/explorer/demo.ts): index.html at
 * /demo, revalidated; assets with their content types, immutable and compressed; 404 and 405 where
 * due, nothing outside the build however the path is spelled, a hint when there is no build, and no
 * /demo at all unless asked for.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { request, type IncomingHttpHeaders } from 'node:http';
import { join } from 'node:path';
import { brotliDecompressSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type Harness } from '../../helpers/gateway.js';
import { buildPage, type BuiltPage } from './built-page.js';

/** A file next to the build, which no /demo path may reach. */
const SECRET = 'secret.txt';
const SECRET_TEXT = 'not for the page';

describe('the example page over HTTP', () => {
  let built: BuiltPage;
  let h: Harness;
  beforeAll(async () => {
    built = await buildPage();
    await writeFile(join(built.workDirectory, SECRET), SECRET_TEXT);
    h = await startGateway({ demoPageDirectory: built.directory });
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    await built?.remove();
  });

  it('answers /demo and /demo/ with index.html, whose assets come with their content types', async () => {
    const html = await Promise.all(['/demo', '/demo/'].map(async (path) => {
      const response = await fetch(`${h.url}${path}`);
      expect(response.status, path).toBe(200);
      expect(response.headers.get('content-type'), path).toBe('text/html; charset=utf-8');
      expect(response.headers.get('content-security-policy'), path).toContain("default-src 'self'");
      return response.text();
    }));
    expect(html[0]).toBe(html[1]);
    expect(html[0]).toContain('<title>vending-graph');

    const assets = [...html[0]!.matchAll(/(?:src|href)="(\/demo\/assets\/[^"]+)"/g)].map((match) => match[1]!);
    const types = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8' };
    expect(assets.map((asset) => asset.slice(asset.lastIndexOf('.'))).sort()).toEqual(['.css', '.js']);
    for (const asset of assets) {
      const response = await fetch(`${h.url}${asset}`);
      expect(response.status, asset).toBe(200);
      expect(response.headers.get('content-type'), asset).toBe(types[asset.slice(asset.lastIndexOf('.')) as keyof typeof types]);
      expect(response.headers.get('x-content-type-options'), asset).toBe('nosniff');
      expect(response.headers.get('cache-control'), asset).toContain('immutable');
      expect((await response.text()).length, asset).toBeGreaterThan(100);
    }
  });

  it('sends the assets compressed as asked (br), immutable, with an ETag per coding, and revalidates index.html (304)', async () => {
    const html = await (await fetch(`${h.url}/demo/`)).text();
    for (const asset of [...html.matchAll(/(?:src|href)="(\/demo\/assets\/[^"]+)"/g)].map((match) => match[1]!)) {
      const plain = await rawGet(h.url, asset, { 'accept-encoding': 'identity' });
      const br = await rawGet(h.url, asset, { 'accept-encoding': 'gzip, br' });
      expect([br.headers['content-encoding'], br.headers.vary, br.headers['cache-control']], asset)
        .toEqual(['br', 'Accept-Encoding, Origin', 'public, max-age=31536000, immutable']);
      expect(brotliDecompressSync(br.bytes).equals(plain.bytes), asset).toBe(true);
      expect(br.bytes.length, asset).toBeLessThan(plain.bytes.length);
      expect(br.headers.etag, asset).not.toBe(plain.headers.etag);
    }
    const page = await rawGet(h.url, '/demo/', { 'accept-encoding': 'br' });
    expect(page.headers['cache-control']).toBe('no-cache');
    const again = await rawGet(h.url, '/demo/', { 'accept-encoding': 'br', 'if-none-match': page.headers.etag as string });
    expect([again.status, again.bytes.length, again.headers['content-security-policy']]).toEqual([304, 0, page.headers['content-security-policy']]);
  });

  it('keeps index.html revalidated however its path is spelled, and serves a rebuilt file at once', async () => {
    const odd = await rawGet(h.url, '/demo/assets/%2e%2e/index.html');
    expect([odd.status, odd.headers['cache-control']]).toEqual([200, 'no-cache']);
    expect((await rawGet(h.url, '/demo/')).headers['cache-control']).toBe('no-cache');
    const file = join(built.directory, 'extra.txt');
    await writeFile(file, 'first build');
    const first = await rawGet(h.url, '/demo/extra.txt');
    await writeFile(file, 'second build, longer');
    const second = await rawGet(h.url, '/demo/extra.txt');
    expect([first.bytes.toString(), second.bytes.toString()]).toEqual(['first build', 'second build, longer']);
    expect(second.headers.etag).not.toBe(first.headers.etag);
  });

  it('answers HEAD with the headers alone, and other methods with 405', async () => {
    const head = await fetch(`${h.url}/demo/`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(Number(head.headers.get('content-length'))).toBeGreaterThan(0);
    expect(await head.text()).toBe('');

    const post = await fetch(`${h.url}/demo/`, { method: 'POST', body: 'x' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });

  it('answers 404 for files the build does not have', async () => {
    for (const path of ['/demo/missing.js', '/demo/assets', '/demo/assets/', '/demo/index.html/x', '/demonstration']) {
      expect((await fetch(`${h.url}${path}`)).status, path).toBe(404);
    }
  });

  it('serves nothing outside the build, however the path is spelled', async () => {
    const paths = [
      `/demo/../${SECRET}`,
      `/demo/%2e%2e/${SECRET}`,
      `/demo/..%2f${SECRET}`,
      `/demo/%2e%2e%2f${SECRET}`,
      `/demo/%2E%2E%2F${SECRET}`,
      `/demo/assets/..%2f..%2f${SECRET}`,
      `/demo/..%5c${SECRET}`,
      `/demo/%2e%2e%2f%2e%2e%2fpackage.json`,
      `/demo/..%2f..%2f..%2f..%2f..%2f..%2f..%2fetc%2fpasswd`,
      `/demo//etc/passwd`,
      `/demo/%2fetc%2fpasswd`,
      `/demo/index.html%00.js`,
      `/demo/%E0%A4%A`,
    ];
    for (const path of paths) {
      const { status, body } = await rawGet(h.url, path);
      expect(status, path).toBeGreaterThanOrEqual(400);
      expect(status, path).toBeLessThan(500);
      expect(body, path).not.toContain(SECRET_TEXT);
      expect(body, path).not.toContain('root:');
      expect(body, path).not.toContain('"name": "vending-graph"');
    }
  });

  it('says to run `npm run build` when the directory holds no build', async () => {
    const empty = join(built.workDirectory, 'empty');
    await mkdir(empty, { recursive: true });
    const unbuilt = await startGateway({ demoPageDirectory: empty });
    try {
      for (const path of ['/demo', '/demo/', '/demo/assets/index.js']) {
        const response = await fetch(`${unbuilt.url}${path}`);
        expect(response.status, path).toBe(404);
        expect(await response.text(), path).toContain('npm run build');
      }
    } finally {
      await unbuilt.close();
    }
  });

  it('serves nothing at /demo when no page directory is given (not demo mode)', async () => {
    const plain = await startGateway();
    try {
      for (const path of ['/demo', '/demo/']) {
        const response = await fetch(`${plain.url}${path}`);
        expect(response.status, path).toBe(404);
        expect(await response.text(), path).not.toContain('<html');
      }
    } finally {
      await plain.close();
    }
  });
});

/** GET `path` exactly as written (fetch would resolve `..` and re-encode before sending), nothing decoded. */
function rawGet(base: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string; bytes: Buffer; headers: IncomingHttpHeaders }> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    request({ hostname, port, path, method: 'GET', headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const bytes = Buffer.concat(chunks);
        resolve({ status: response.statusCode!, body: bytes.toString('utf8'), bytes, headers: response.headers });
      });
    }).on('error', reject).end();
  });
}
