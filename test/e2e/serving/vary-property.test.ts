/**
 * `Vary` as a shared cache needs it, for every kind of answer (encoding/vary.ts): generated
 * requests (GET, POST or HEAD; no coding, one, several, q-values, identity, `*`; no `Origin`, a
 * listed one, another; a miss, a hit or a 304) to the gateway, under CORS for any origin and for
 * a list, for GraphQL answers large and small, the GraphiQL page, its assets and the example
 * page's files. Of every answer:
 *
 * - `Accept-Encoding` is in `Vary`, once, exactly when another coding could have been chosen
 *   (a representation to compress: JSON from `COMPRESSION_MIN_BYTES` up, a file from 1 KiB up);
 * - `Origin` is in `Vary` whenever a cache may keep it (anything but `no-store`), since CORS
 *   headers depend on it, asked with one or not;
 * - no name is there twice, and the body is in a coding the request accepts, which decodes.
 */
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync, zstdDecompressSync } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { negotiate } from '../../../src/encoding/negotiate.js';
import { fuzzParameters } from '../../fuzz/settings.js';
import { startGateway, type Harness } from '../../helpers/gateway.js';

interface Wire {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The bytes as sent, still encoded. */
  body: Buffer;
}

const DECODE: Record<string, (bytes: Buffer) => Buffer> = { br: brotliDecompressSync, gzip: gunzipSync, zstd: zstdDecompressSync };
const LISTED = 'https://app.example';
const CORS = { any: '*', list: `${LISTED}, https://admin.example` };
/** About 4 KB: compressed from COMPRESSION_MIN_BYTES (1 KiB by default) up. */
const LARGE = 'sites(pageSize: 50) { items { code name city { code name } } }';
/** A few dozen bytes: never compressed. */
const SMALL = 'cities(pageSize: 1) { total }';

type Target = 'large' | 'small' | 'page' | 'asset' | 'demo';
interface Case {
  door: number;
  target: Target;
  method: 'GET' | 'POST' | 'HEAD';
  coding: string | undefined;
  origin: string | undefined;
  state: 'miss' | 'hit' | '304';
}

/** A request as sent, node:http decoding nothing. */
function send(url: string, method: string, headers: Record<string, string>, body?: string): Promise<Wire> {
  return new Promise((done, fail) => {
    const sent = request(url, { method, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => done({ status: response.statusCode!, headers: response.headers, body: Buffer.concat(chunks) }));
      response.on('error', fail);
    });
    sent.on('error', fail);
    sent.end(body);
  });
}

/** The names a `Vary` header lists, lower case. */
function varyNames(vary: string | string[] | undefined): string[] {
  return (Array.isArray(vary) ? vary.join(',') : (vary ?? '')).split(',').map((name) => name.trim().toLowerCase()).filter(Boolean);
}

describe('Vary over generated requests, on both doors', () => {
  const doors: Harness[] = [];
  let demo: string;
  let graphiqlAssets: string[];
  let runs = 0;
  beforeAll(async () => {
    demo = await mkdtemp(join(tmpdir(), 'vending-graph-vary-'));
    await mkdir(join(demo, 'assets'));
    await writeFile(join(demo, 'index.html'), `<!doctype html><title>demo</title>${'<p>vending</p>'.repeat(200)}`);
    await writeFile(join(demo, 'assets', 'app-0123abcd.js'), `console.log(${JSON.stringify('vending '.repeat(400))});`);
    for (const cors of [CORS.any, CORS.list]) doors.push(await startGateway({ demoPageDirectory: demo, env: { CORS_ORIGINS: cors } }));
    const shell = await send(`${doors[0]!.url}/graphql`, 'GET', { accept: 'text/html' });
    // The style sheet and the icon: the 9 MB script would cost seconds of compression per coding and door.
    graphiqlAssets = [...shell.body.toString().matchAll(/(?:src|href)="([^"]+\.(?:css|ico))"/g)].map((match) => match[1]!);
    expect(graphiqlAssets).toHaveLength(2);
  });
  afterAll(async () => {
    for (const h of doors) await h.close();
    await rm(demo, { recursive: true, force: true });
  });

  const cases: fc.Arbitrary<Case> = fc.record({
    door: fc.integer({ min: 0, max: 1 }),
    target: fc.constantFrom<Target>('large', 'large', 'small', 'page', 'asset', 'demo'),
    method: fc.constantFrom('GET', 'GET', 'POST', 'HEAD'),
    coding: fc.constantFrom(undefined, 'identity', 'gzip', 'br', 'zstd', 'gzip, deflate, br', 'gzip, deflate, br, zstd', 'br;q=0.5, zstd', 'identity;q=0, gzip', 'br;q=0, gzip;q=0', '*'),
    origin: fc.constantFrom(undefined, LISTED, 'https://evil.example'),
    state: fc.constantFrom('miss', 'hit', '304'),
  });

  it('names Accept-Encoding exactly when another coding could be sent, and Origin on every answer a cache may keep', async () => {
    await fc.assert(fc.asyncProperty(cases, async (asked) => {
      const h = doors[asked.door]!;
      runs += 1;
      const { url, method, headers, body } = requestOf(h, asked, runs);
      // A hit, and a 304, follow the same request once (twice for a 304: the second has its coding's ETag).
      let answer = await send(url, method, headers, body);
      if (asked.state !== 'miss') answer = await send(url, method, headers, body);
      if (asked.state === '304' && typeof answer.headers.etag === 'string') {
        answer = await send(url, method, { ...headers, 'if-none-match': answer.headers.etag }, body);
      }
      check(asked, answer);
    }), fuzzParameters(150));
  });

  // Private: the request a case makes; a miss asks an operation never asked before (an alias of its own).
  function requestOf(h: Harness, asked: Case, run: number): { url: string; method: string; headers: Record<string, string>; body?: string } {
    const headers: Record<string, string> = {};
    if (asked.coding !== undefined) headers['accept-encoding'] = asked.coding;
    if (asked.origin !== undefined) headers.origin = asked.origin;
    if (asked.target === 'page') return { url: `${h.url}/graphql`, method: asked.method, headers: { ...headers, accept: 'text/html' } };
    if (asked.target === 'asset') return { url: `${h.url}${graphiqlAssets[run % 2]}`, method: asked.method, headers };
    if (asked.target === 'demo') return { url: `${h.url}/demo/${run % 2 === 0 ? '' : 'assets/app-0123abcd.js'}`, method: asked.method, headers };
    const query = `{ run${run}: ${asked.target === 'large' ? LARGE : SMALL} }`;
    headers.accept = 'application/graphql-response+json';
    if (asked.method !== 'POST') return { url: `${h.url}/graphql?query=${encodeURIComponent(query)}`, method: asked.method, headers };
    return { url: `${h.url}/graphql`, method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ query }) };
  }
});

// Private: the property, of one answer to `asked`.
function check(asked: Case, answer: Wire): void {
  const context = JSON.stringify({ asked, status: answer.status, headers: answer.headers });
  const names = varyNames(answer.headers.vary);
  expect(new Set(names).size, context).toBe(names.length);
  const represented = answer.status === 200 || answer.status === 304;
  const compressible = represented && asked.target !== 'small';
  expect(names.includes('accept-encoding'), context).toBe(compressible);
  if (answer.headers['cache-control'] !== 'no-store') expect(names, context).toContain('origin');
  const coding = answer.headers['content-encoding'] as string | undefined;
  // The coding sent is the one the request's Accept-Encoding picks (identity for a client that takes none of ours).
  if (answer.status === 200) expect(coding ?? 'identity', context).toBe(compressible ? (negotiate(asked.coding) ?? 'identity') : 'identity');
  if (answer.status === 200 && asked.method !== 'HEAD' && coding !== undefined) expect(DECODE[coding]!(answer.body).length, context).toBeGreaterThan(0);
  if (answer.status === 200 && asked.method !== 'HEAD' && (asked.target === 'large' || asked.target === 'small')) {
    const text = (coding === undefined ? answer.body : DECODE[coding]!(answer.body)).toString();
    expect(JSON.parse(text).data, context).toBeDefined();
  }
}
