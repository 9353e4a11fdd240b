/**
 * The GraphiQL page over plain HTTP (src/pages/explorer/graphiql-assets.ts): a short shell
 * revalidated with its ETag, and its script, style sheet and icon under content-hashed names,
 * immutable and compressed; the bytes a visit costs with brotli against identity.
 */
import { createHash } from 'node:crypto';
import { request } from 'node:http';
import { brotliDecompressSync, gunzipSync, zstdDecompressSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GRAPHIQL_CONTENT_SECURITY_POLICY } from '../../../src/pages/explorer/graphiql-assets.js';
import { startGateway, type Harness } from '../../helpers/gateway.js';

interface Wire {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The bytes as sent, still encoded. */
  body: Buffer;
}

const DECODE: Record<string, (bytes: Buffer) => Buffer> = { br: brotliDecompressSync, gzip: gunzipSync, zstd: zstdDecompressSync };
const PAGE = { accept: 'text/html' };

/** A GET as it crosses the wire: node:http decodes nothing. */
function wire(url: string, headers: Record<string, string> = {}): Promise<Wire> {
  return new Promise((done, fail) => {
    request(url, { headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => done({ status: response.statusCode!, headers: response.headers, body: Buffer.concat(chunks) }));
      response.on('error', fail);
    }).on('error', fail).end();
  });
}

function assetsOf(shell: string): string[] {
  return [...shell.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]!);
}

describe('the GraphiQL page and its assets', () => {
  let h: Harness;
  let shell: Wire;
  let assets: string[];
  beforeAll(async () => {
    h = await startGateway();
    shell = await wire(`${h.url}/graphql`, PAGE);
    assets = assetsOf(shell.body.toString('utf8'));
  });
  afterAll(() => h?.close());

  it('serves the page as a short shell, revalidated every visit: no-cache, an ETag, and 304 when it is sent back', async () => {
    expect(shell.status).toBe(200);
    expect(shell.body.length).toBeLessThan(8 * 1024);
    expect(shell.headers['cache-control']).toBe('no-cache');
    expect(shell.headers['content-security-policy']).toBe(GRAPHIQL_CONTENT_SECURITY_POLICY);
    expect(shell.headers['x-content-type-options']).toBe('nosniff');
    // The URL answers GraphQL to another Accept; CORS (on by default) gives another Origin other headers.
    expect(shell.headers.vary).toBe('Accept, Accept-Encoding, Origin');
    const etag = shell.headers.etag as string;
    expect(etag).toMatch(/^"[0-9a-f]{16}"$/);
    const again = await wire(`${h.url}/graphql`, { ...PAGE, 'if-none-match': etag });
    expect([again.status, again.body.length, again.headers.etag, again.headers['cache-control']]).toEqual([304, 0, etag, 'no-cache']);
  });

  it('names its script, style sheet and icon by their content hash, immutable for a year, and no other name', async () => {
    expect(assets.map((path) => path.replace(/[0-9a-f]{16}/, '<hash>')).sort()).toEqual(
      ['/graphql/assets/<hash>.css', '/graphql/assets/<hash>.ico', '/graphql/assets/<hash>.js'],
    );
    for (const path of assets) {
      const asset = await wire(`${h.url}${path}`);
      expect(asset.status, path).toBe(200);
      expect(asset.headers['cache-control'], path).toBe('public, max-age=31536000, immutable');
      expect(createHash('sha256').update(asset.body).digest('hex').slice(0, 16), path).toBe(/([0-9a-f]{16})/.exec(path)![1]);
    }
    const stale = await wire(`${h.url}/graphql/assets/0123456789abcdef.js`);
    expect([stale.status, stale.headers['cache-control']]).toEqual([404, 'no-store']);
  });

  it('sends the script in br, zstd or gzip as asked, each with its own ETag and Vary: Accept-Encoding, decoding to the same bytes', async () => {
    const script = assets.find((path) => path.endsWith('.js'))!;
    const plain = await wire(`${h.url}${script}`, { 'accept-encoding': 'identity' });
    expect(plain.headers['content-encoding']).toBeUndefined();
    const etags = new Set([plain.headers.etag]);
    for (const coding of ['br', 'zstd', 'gzip']) {
      const encoded = await wire(`${h.url}${script}`, { 'accept-encoding': `${coding}, identity;q=0.5` });
      expect([encoded.status, encoded.headers['content-encoding'], encoded.headers.vary]).toEqual([200, coding, 'Accept-Encoding, Origin']);
      expect(Number(encoded.headers['content-length'])).toBe(encoded.body.length);
      expect(DECODE[coding]!(encoded.body).equals(plain.body), coding).toBe(true);
      etags.add(encoded.headers.etag);
      const revalidated = await wire(`${h.url}${script}`, { 'accept-encoding': coding, 'if-none-match': encoded.headers.etag as string });
      expect(revalidated.status).toBe(304);
    }
    expect(etags.size).toBe(4);
  });

  it('costs a visit about a fifth of its identity bytes with brotli (figures on stdout)', async () => {
    const visit = async (encoding: string) => {
      const answers = await Promise.all([
        wire(`${h.url}/graphql`, { ...PAGE, 'accept-encoding': encoding }),
        ...assets.map((path) => wire(`${h.url}${path}`, { 'accept-encoding': encoding })),
      ]);
      return answers.reduce((sum, answer) => sum + answer.body.length, 0);
    };
    const identity = await visit('identity');
    const bytes = { identity, br: await visit('br'), zstd: await visit('zstd'), gzip: await visit('gzip') };
    process.stdout.write(`GraphiQL page, bytes over the wire per first visit: ${JSON.stringify(bytes)}\n`);
    expect(identity).toBeGreaterThan(8_000_000);
    expect(bytes.br * 4).toBeLessThan(identity);
    expect(bytes.gzip).toBeGreaterThan(bytes.br);
  });
});

describe('the GraphiQL assets with API keys set', () => {
  it('open without a key, like the page, while a query without one still gets 401', async () => {
    const h = await startGateway({ env: { GATEWAY_API_KEYS: 'k-0123456789abcdef0123' } });
    try {
      const shell = await wire(`${h.url}/graphql`, PAGE);
      expect(shell.status).toBe(200);
      for (const path of assetsOf(shell.body.toString('utf8'))) expect((await wire(`${h.url}${path}`)).status, path).toBe(200);
      expect((await wire(`${h.url}/graphql?query=%7B__typename%7D`)).status).toBe(401);
    } finally {
      await h.close();
    }
  });
});

describe('the GraphiQL page and assets with COMPRESSION=false', () => {
  it('sends each identity to a client asking for br, with the same ETag, 304 and Cache-Control, and no Vary on Accept-Encoding', async () => {
    const h = await startGateway({ env: { COMPRESSION: 'false' } });
    try {
      const shell = await wire(`${h.url}/graphql`, { ...PAGE, 'accept-encoding': 'br' });
      expect([shell.status, shell.headers['content-encoding'], shell.headers.vary]).toEqual([200, undefined, 'Accept, Origin']);
      const script = assetsOf(shell.body.toString('utf8')).find((path) => path.endsWith('.js'))!;
      const asset = await wire(`${h.url}${script}`, { 'accept-encoding': 'br' });
      expect([asset.status, asset.headers['content-encoding'], asset.headers.vary]).toEqual([200, undefined, 'Origin']);
      expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(Number(asset.headers['content-length'])).toBe(asset.body.length);
      // The bytes as they are: their hash is the name's, and the ETag the identity one.
      const hash = /([0-9a-f]{16})/.exec(script)![1];
      expect(createHash('sha256').update(asset.body).digest('hex').slice(0, 16)).toBe(hash);
      expect(asset.headers.etag).toBe(`"${hash}"`);
      const revalidated = await wire(`${h.url}${script}`, { 'accept-encoding': 'br', 'if-none-match': `"${hash}"` });
      expect([revalidated.status, revalidated.headers['cache-control']]).toEqual([304, 'public, max-age=31536000, immutable']);
    } finally {
      await h.close();
    }
  });
});
