/**
 * Compressed answers (docs "Compression"): negotiated from `Accept-Encoding` over real HTTP;
 * decoded by curl and Chromium as the JSON sent identity; a stored
 * answer compressed once per coding (gateway_compressions_total), with a 304 per coding;
 * incremental answers and subscriptions (SSE, WebSocket) sent identity.
 */
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { promisify } from 'node:util';
import * as zlib from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { entrySize } from '../../../src/response-cache/entry-size.js';
import { startGateway, type Harness } from '../../helpers/gateway.js';
import { metric, scrape } from '../../helpers/http.js';
import { launchBrowser } from '../../helpers/browser.js';

/** An answer of about 8 kB: 20 sites with their points. */
const PAGE = '{ sites(pageSize: 20) { items { code name address points { code name } } } }';
const SMALL = '{ cities(pageSize: 1) { total } }';
const hasZstd = typeof (zlib as { zstdDecompressSync?: unknown }).zstdDecompressSync === 'function';

interface Raw {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

// Private: node:http, which neither adds Accept-Encoding nor decodes, unlike fetch.
function send(h: Harness, method: 'GET' | 'POST', query: string, headers: Record<string, string> = {}): Promise<Raw> {
  const body = JSON.stringify({ query });
  const path = method === 'GET' ? `/graphql?query=${encodeURIComponent(query)}` : '/graphql';
  const base = method === 'POST' ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) } : {};
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(`${h.url}${path}`, { method, headers: { accept: 'application/graphql-response+json', ...base, ...headers } }, (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk)).on('error', reject);
      incoming.on('end', () => resolve({ status: incoming.statusCode!, headers: incoming.headers, body: Buffer.concat(chunks) }));
    });
    outgoing.on('error', reject);
    outgoing.end(method === 'POST' ? body : undefined);
  });
}

function decode(answer: Raw): unknown {
  const coding = answer.headers['content-encoding'];
  const decoders: Record<string, (body: Buffer) => Buffer> = {
    br: zlib.brotliDecompressSync, gzip: zlib.gunzipSync,
    zstd: (body) => (zlib as unknown as { zstdDecompressSync(body: Buffer): Buffer }).zstdDecompressSync(body),
  };
  return JSON.parse((coding === undefined ? answer.body : decoders[coding]!(answer.body)).toString());
}

const compressions = async (h: Harness, coding: string) => metric(await scrape(h), 'gateway_compressions_total', { coding });

describe('compressed answers', () => {
  let h: Harness;
  afterEach(() => h.close());

  it(`sends each coding asked for, decoding to the identity answer, with Vary`, async () => {
    h = await startGateway({ env: { RESPONSE_CACHE_MAX_BYTES: '0' } });
    const plain = await send(h, 'POST', PAGE);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.vary).toContain('Accept-Encoding');
    expect(plain.body.length).toBeGreaterThan(4096);
    for (const coding of ['br', 'gzip', ...(hasZstd ? ['zstd'] : [])]) {
      const answer = await send(h, 'POST', PAGE, { 'accept-encoding': coding });
      expect([coding, answer.headers['content-encoding'], answer.headers.vary]).toEqual([coding, coding, 'Accept-Encoding']);
      expect(Number(answer.headers['content-length'])).toBe(answer.body.length);
      expect(answer.body.length).toBeLessThan(plain.body.length / 3);
      expect(decode(answer)).toEqual(JSON.parse(plain.body.toString()));
    }
  });

  it('honours q-values, identity and * as RFC 9110 says', async () => {
    h = await startGateway();
    const cases: Array<[string, string | undefined]> = [
      ['gzip;q=1, br;q=0.5', 'gzip'],
      ['br;q=0, gzip', 'gzip'],
      ['gzip, br', 'br'],
      ['identity', undefined],
      ['identity;q=1, gzip;q=0.5', undefined],
      ['*', 'br'],
      ['*;q=0, gzip', 'gzip'],
      ['compress, deflate', undefined],
      ['BR;Q=0.9, GZIP;q=0.8', 'br'],
    ];
    for (const [header, expected] of cases) {
      const answer = await send(h, 'POST', PAGE, { 'accept-encoding': header });
      expect([header, answer.status, answer.headers['content-encoding']]).toEqual([header, 200, expected]);
    }
  });

  it('sends an answer under COMPRESSION_MIN_BYTES identity, without Vary: Accept-Encoding', async () => {
    h = await startGateway({ env: { COMPRESSION_MIN_BYTES: '100000' } });
    const answer = await send(h, 'POST', PAGE, { 'accept-encoding': 'br, gzip' });
    expect(answer.headers['content-encoding']).toBeUndefined();
    expect(answer.headers.vary ?? '').not.toContain('Accept-Encoding');
    const small = await send(h, 'GET', SMALL, { 'accept-encoding': 'br' });
    expect([small.status, small.headers['content-encoding']]).toEqual([200, undefined]);
    expect(await compressions(h, 'br')).toBe(0);
  });

  it(`never encodes with COMPRESSION=false`, async () => {
    h = await startGateway({ env: { COMPRESSION: 'false' } });
    for (const method of ['POST', 'GET', 'POST'] as const) {
      const answer = await send(h, method, PAGE, { 'accept-encoding': 'br, gzip, zstd' });
      expect([answer.status, answer.headers['content-encoding'], answer.headers.vary ?? '']).toEqual([200, undefined, expect.not.stringContaining('Accept-Encoding')]);
    }
  });

  it(`compresses a stored answer once per coding: hits in br are the same bytes, with no new compression`, async () => {
    h = await startGateway();
    const first = await send(h, 'POST', PAGE, { 'accept-encoding': 'br' });
    const second = await send(h, 'POST', PAGE, { 'accept-encoding': 'br' });
    const third = await send(h, 'POST', PAGE, { 'accept-encoding': 'br' });
    expect([first.headers['x-cache'], second.headers['x-cache'], third.headers['x-cache']]).toEqual(['miss', 'hit', 'hit']);
    expect(second.body.equals(first.body) && third.body.equals(first.body)).toBe(true);
    expect(await compressions(h, 'br')).toBe(1);
    const gzip = await send(h, 'POST', PAGE, { 'accept-encoding': 'gzip' });
    await send(h, 'POST', PAGE, { 'accept-encoding': 'gzip' });
    expect([await compressions(h, 'br'), await compressions(h, 'gzip')]).toEqual([1, 1]);
    expect(decode(gzip)).toEqual(decode(first));
    expect(h.mock.calls()).toBe(1);
  });

  it('counts a kept coding in the entry\'s bytes: one that would pass the entry cap is not kept, and the entry stays', async () => {
    h = await startGateway();
    const first = await send(h, 'GET', PAGE);
    await h.close();
    // The entry cap (a tenth of the whole) fits the identity answer as the cache prices it (its
    // key, a SHA-256 in base64url, its ETag and tags: entry-size.ts), not with a br form beside it.
    const identity = entrySize({ body: first.body, etag: first.headers.etag!, tags: String(first.headers['surrogate-key']).split(' ') }, 'k'.repeat(43));
    h = await startGateway({ env: { RESPONSE_CACHE_MAX_BYTES: String(10 * (identity + 150)) } });
    await send(h, 'POST', PAGE);
    const answers = [await send(h, 'POST', PAGE, { 'accept-encoding': 'br' }), await send(h, 'POST', PAGE, { 'accept-encoding': 'br' })];
    expect(answers.map((answer) => [answer.headers['x-cache'], answer.headers['content-encoding']])).toEqual([['hit', 'br'], ['hit', 'br']]);
    expect(answers[1]!.body.equals(answers[0]!.body)).toBe(true);
    expect(await compressions(h, 'br')).toBe(2);
    expect((await send(h, 'POST', PAGE)).headers['x-cache']).toBe('hit');
    expect(h.mock.calls()).toBe(1);
  });

  it("gives each coding of a stored answer its own ETag, and a GET's If-None-Match a 304 per coding", async () => {
    h = await startGateway();
    const plain = await send(h, 'GET', PAGE);
    const br = await send(h, 'GET', PAGE, { 'accept-encoding': 'br' });
    const gzip = await send(h, 'GET', PAGE, { 'accept-encoding': 'gzip' });
    const etag = plain.headers.etag!;
    expect(br.headers.etag).toBe(`${etag.slice(0, -1)}-br"`);
    expect(gzip.headers.etag).toBe(`${etag.slice(0, -1)}-gzip"`);
    for (const [coding, tag] of [['br', br.headers.etag!], ['gzip', gzip.headers.etag!], ['identity', etag]]) {
      const revalidated = await send(h, 'GET', PAGE, { 'accept-encoding': coding!, 'if-none-match': tag! });
      expect([coding, revalidated.status, revalidated.body.length, revalidated.headers.etag]).toEqual([coding, 304, 0, tag]);
      expect(revalidated.headers.vary).toContain('Accept-Encoding');
    }
    // Another coding's tag does not match: the answer comes whole, in the coding asked for.
    const other = await send(h, 'GET', PAGE, { 'accept-encoding': 'br', 'if-none-match': gzip.headers.etag! });
    expect([other.status, other.headers['content-encoding']]).toEqual([200, 'br']);
    expect(other.headers.vary).toMatch(/Accept-Encoding/);
    expect(other.headers['cache-control']).toMatch(/^public, max-age=\d+$/);
  });

  it(`gives an answer first sent compressed (a miss) its coding's ETag, the one its hits then carry`, async () => {
    h = await startGateway();
    for (const method of ['GET', 'POST'] as const) {
      // Another page for each method: the key knows no method, so the POST would hit the GET's answer.
      const query = PAGE.replace('pageSize: 20', method === 'GET' ? 'pageSize: 19' : 'pageSize: 18');
      const made = await send(h, method, query, { 'accept-encoding': 'br' });
      const plain = await send(h, method, query);
      expect([method, made.headers['x-cache'], made.headers['content-encoding'], plain.headers['x-cache']]).toEqual([method, 'miss', 'br', 'hit']);
      expect(made.headers.etag).toBe(`${plain.headers.etag!.slice(0, -1)}-br"`);
      expect((await send(h, method, query, { 'accept-encoding': 'br' })).headers.etag).toBe(made.headers.etag);
    }
  });

  it('sends @defer over multipart and SSE identity, even to a client that accepts br', async () => {
    h = await startGateway();
    // Parts well over COMPRESSION_MIN_BYTES: were they compressible, they would be compressed.
    const deferred = '{ sites(pageSize: 20) { total ... @defer { items { code name address points { code name } } } } }';
    for (const accept of ['multipart/mixed', 'text/event-stream']) {
      const answer = await send(h, 'POST', deferred, { accept, 'accept-encoding': 'br, gzip' });
      expect([accept, answer.status, answer.headers['content-type']?.split(';')[0]]).toEqual([accept, 200, accept]);
      // yoga says `Content-Encoding: none` on its incremental answers, for proxies that would buffer them.
      expect([undefined, 'none']).toContain(answer.headers['content-encoding']);
      expect(answer.body.length).toBeGreaterThan(4096);
      expect(answer.body.toString()).toContain('"hasNext":false');
    }
    expect(await compressions(h, 'br')).toBe(0);
  });

  it('sends a subscription identity over SSE and over WebSocket, the two doors that carry one', async () => {
    h = await startGateway();
    const code = h.mock.catalog.sites[0]!.code;
    const subscription = JSON.stringify({ query: `subscription { siteStock(code: "${code}") { code points { code } } }` });
    // SSE: the first event, read as it arrives, with the headers the stream began with.
    const sse = await new Promise<{ headers: IncomingHttpHeaders; first: string }>((resolve, reject) => {
      const outgoing = httpRequest(`${h.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'accept-encoding': 'br, gzip' },
      }, (incoming) => {
        let text = '';
        incoming.on('data', (chunk: Buffer) => {
          text += chunk.toString();
          if (!text.includes('event: next')) return;
          resolve({ headers: incoming.headers, first: text });
          outgoing.destroy();
        }).on('error', () => {});
      });
      outgoing.on('error', reject);
      outgoing.end(subscription);
    });
    expect([undefined, 'none']).toContain(sse.headers['content-encoding']);
    expect(sse.first).toContain(`"code":"${code}"`);
    // WebSocket: a client offering per-message deflate is not given it.
    const socket = new WebSocket(`${h.url.replace('http', 'ws')}/graphql`, 'graphql-transport-ws', { perMessageDeflate: true });
    await once(socket, 'open');
    expect(socket.extensions).toBe('');
    socket.close();
    expect(await compressions(h, 'br')).toBe(0);
  });

  it("decodes with curl's --compressed to the same JSON as identity", async () => {
    h = await startGateway();
    const body = JSON.stringify({ query: PAGE });
    const curl = (...extra: string[]) => promisify(execFile)('/usr/bin/curl', [
      '-sS', '-D', '-', '-X', 'POST', '-H', 'content-type: application/json', '-H', 'accept: application/graphql-response+json', '--data', body, ...extra, `${h.url}/graphql`,
    ], { maxBuffer: 1 << 24 });
    const plain = await curl();
    const compressed = await curl('--compressed');
    expect(compressed.stdout).toMatch(/^content-encoding: (br|gzip|zstd|deflate)\r$/im);
    expect(plain.stdout).not.toMatch(/^content-encoding:/im);
    const json = (text: string) => JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4));
    expect(json(compressed.stdout)).toEqual(json(plain.stdout));
  });

  it("gives Chromium's fetch a br answer it decodes", async () => {
    h = await startGateway();
    const browser = await launchBrowser();
    try {
      await browser.page.goto(`${h.url}/healthz`);
      const seen = await browser.page.evaluate(async (query) => {
        const response = await fetch('/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) });
        const json = await response.json();
        // The timing entry is queued after the body is read: wait for it rather than read it too soon.
        const entry = await new Promise<PerformanceResourceTiming>((resolve) => {
          new PerformanceObserver((list, observer) => {
            const found = list.getEntries().find((e) => e.name.endsWith('/graphql')) as PerformanceResourceTiming | undefined;
            if (found === undefined) return;
            observer.disconnect();
            resolve(found);
          }).observe({ type: 'resource', buffered: true });
        });
        return { coding: response.headers.get('content-encoding'), items: json.data.sites.items.length, sizes: [entry.encodedBodySize, entry.decodedBodySize] };
      }, PAGE);
      expect(seen.coding).toBe('br');
      expect(seen.items).toBe(20);
      expect(seen.sizes[0]).toBeLessThan(seen.sizes[1]! / 3);
    } finally {
      await browser.close();
    }
  });
});
