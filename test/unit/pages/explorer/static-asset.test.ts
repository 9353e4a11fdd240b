/**
 * One static file's answers (src/pages/explorer/static-asset.ts): the coding negotiated, each
 * compressed once however often it is asked for, an ETag per coding and 304 for it.
 */
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { COMPRESSORS, createStaticAsset, IMMUTABLE, type Compressors } from '../../../../src/pages/explorer/static-asset.js';

const BODY = Buffer.from('console.log("a script that compresses well");\n'.repeat(200));
const OPTIONS = { type: 'text/javascript; charset=utf-8', cacheControl: IMMUTABLE };

/** zlib's compressors, each counting its runs. */
function counted(): { compressors: Compressors; runs: Record<string, number> } {
  const runs: Record<string, number> = { br: 0, gzip: 0, zstd: 0 };
  const compressors = Object.fromEntries(Object.entries(COMPRESSORS).map(([coding, compress]) => [coding, (body: Buffer) => {
    runs[coding]! += 1;
    return compress(body);
  }])) as Compressors;
  return { compressors, runs };
}

function ask(headers: Record<string, string>, method = 'GET'): Request {
  return new Request('http://gateway/graphql/assets/x.js', { method, headers });
}

describe('a static asset', () => {
  it('compresses each coding once, on its first ask, however many ask at once or later', async () => {
    const { compressors, runs } = counted();
    const asset = createStaticAsset(BODY, OPTIONS, compressors);
    expect(runs).toEqual({ br: 0, gzip: 0, zstd: 0 });
    const answers = await Promise.all([1, 2, 3].map(() => asset.respond(ask({ 'accept-encoding': 'br' }), globalThis)));
    await asset.respond(ask({ 'accept-encoding': 'gzip' }), globalThis);
    await asset.respond(ask({ 'accept-encoding': 'br, gzip' }), globalThis);
    expect(runs).toEqual({ br: 1, gzip: 1, zstd: 0 });
    for (const answer of answers) {
      expect(answer.headers.get('content-encoding')).toBe('br');
      expect(brotliDecompressSync(Buffer.from(await answer.arrayBuffer()))).toEqual(BODY);
    }
  });

  it('answers in the coding asked for, with its own ETag, Vary: Accept-Encoding and the length sent', async () => {
    const asset = createStaticAsset(BODY, OPTIONS);
    const [br, gzip, plain] = await Promise.all(['br', 'gzip;q=1, br;q=0.5', 'identity'].map((header) => asset.respond(ask({ 'accept-encoding': header }), globalThis)));
    expect([br, gzip, plain].map((answer) => answer!.headers.get('content-encoding'))).toEqual(['br', 'gzip', null]);
    expect(new Set([br, gzip, plain].map((answer) => answer!.headers.get('etag'))).size).toBe(3);
    expect(plain!.headers.get('etag')).toBe(`"${asset.hash}"`);
    const zipped = Buffer.from(await gzip!.arrayBuffer());
    expect(gunzipSync(zipped)).toEqual(BODY);
    expect(Number(gzip!.headers.get('content-length'))).toBe(zipped.length);
    for (const answer of [br, gzip, plain]) {
      expect(answer!.headers.get('vary')).toBe('Accept-Encoding');
      expect(answer!.headers.get('cache-control')).toBe(IMMUTABLE);
    }
  });

  it("answers 304 to its coding's ETag (weak or in a list), and 200 to another coding's", async () => {
    const asset = createStaticAsset(BODY, { ...OPTIONS, cacheControl: 'no-cache' });
    const etag = (await asset.respond(ask({ 'accept-encoding': 'br' }), globalThis)).headers.get('etag')!;
    for (const header of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const answer = await asset.respond(ask({ 'accept-encoding': 'br', 'if-none-match': header }), globalThis);
      expect([header, answer.status, answer.headers.get('etag'), answer.headers.get('cache-control')]).toEqual([header, 304, etag, 'no-cache']);
      expect(await answer.text()).toBe('');
    }
    expect((await asset.respond(ask({ 'accept-encoding': 'gzip', 'if-none-match': etag }), globalThis)).status).toBe(200);
  });

  it('sends a file under 1 KB as it is, and HEAD with the headers alone', async () => {
    const { compressors, runs } = counted();
    const small = createStaticAsset(Buffer.from('<p>short</p>'), OPTIONS, compressors);
    const answer = await small.respond(ask({ 'accept-encoding': 'br' }), globalThis);
    expect([answer.headers.get('content-encoding'), answer.headers.get('vary'), await answer.text()]).toEqual([null, null, '<p>short</p>']);
    const head = await createStaticAsset(BODY, OPTIONS).respond(ask({ 'accept-encoding': 'gzip' }, 'HEAD'), globalThis);
    expect([head.status, head.headers.get('content-encoding'), await head.text()]).toEqual([200, 'gzip', '']);
    expect(Number(head.headers.get('content-length'))).toBeGreaterThan(0);
    expect(runs.br).toBe(0);
  });

  it('sends identity to a client that refuses every coding, identity included', async () => {
    const answer = await createStaticAsset(BODY, OPTIONS).respond(ask({ 'accept-encoding': 'identity;q=0, compress' }), globalThis);
    expect([answer.status, answer.headers.get('content-encoding')]).toEqual([200, null]);
    expect(Buffer.from(await answer.arrayBuffer())).toEqual(BODY);
  });

  it('with compress false, sends identity to every Accept-Encoding and never compresses', async () => {
    const { compressors, runs } = counted();
    const asset = createStaticAsset(BODY, { ...OPTIONS, compress: false }, compressors);
    for (const encoding of ['br', 'gzip, zstd', '*']) {
      const answer = await asset.respond(ask({ 'accept-encoding': encoding }), globalThis);
      expect([answer.headers.get('content-encoding'), answer.headers.get('vary'), answer.headers.get('etag')]).toEqual([null, null, `"${asset.hash}"`]);
      expect(Buffer.from(await answer.arrayBuffer())).toEqual(BODY);
    }
    expect(runs).toEqual({ br: 0, gzip: 0, zstd: 0 });
  });
});
