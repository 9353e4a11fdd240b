/**
 * Request bodies sent with a `Content-Encoding`: decoded as they stream in, within the body limit
 * counted on the decoded bytes, so that a zip bomb is refused once it decodes past the limit,
 * before the rest of it has even arrived, and never inflated whole.
 */
import { request } from 'node:http';
import * as zlib from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { startGateway, type Harness } from '../../helpers/gateway.js';

const QUERY = JSON.stringify({ query: '{ cities(pageSize: 1) { total } }' });

const zstd = (zlib as { zstdCompressSync?: (body: Buffer) => Buffer }).zstdCompressSync;
const ENCODERS: Record<string, (body: Buffer) => Buffer> = {
  gzip: (body) => zlib.gzipSync(body),
  deflate: (body) => zlib.deflateSync(body),
  br: (body) => zlib.brotliCompressSync(body),
  ...(zstd === undefined ? {} : { zstd: (body: Buffer) => zstd.call(zlib, body) }),
};

function postEncoded(h: Harness, encoding: string, body: Buffer): Promise<Response> {
  return fetch(`${h.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', 'content-encoding': encoding },
    body: new Uint8Array(body),
  });
}

describe('compressed request bodies', () => {
  let h: Harness;
  afterEach(() => h.close());

  it(`runs a query sent gzip-, deflate- or br-compressed as if sent plain`, async () => {
    h = await startGateway();
    const plain = await (await postEncoded(h, 'identity', Buffer.from(QUERY))).json();
    expect(plain).toMatchObject({ data: { cities: { total: expect.any(Number) } } });
    for (const [encoding, encode] of Object.entries(ENCODERS)) {
      const response = await postEncoded(h, encoding, encode(Buffer.from(QUERY)));
      expect([encoding, response.status, await response.json()]).toEqual([encoding, 200, plain]);
    }
  });

  it('counts the limit on the decoded bytes: a small compressed body that decodes past MAX_REQUEST_BODY_BYTES gets 413', async () => {
    h = await startGateway({ env: { MAX_REQUEST_BODY_BYTES: '2048' } });
    const padded = (size: number) => Buffer.from(QUERY.replace('{', `{${' '.repeat(size - QUERY.length)}`));
    expect((await postEncoded(h, 'gzip', zlib.gzipSync(padded(2048)))).status).toBe(200);
    const over = await postEncoded(h, 'gzip', zlib.gzipSync(padded(2049)));
    expect(over.status).toBe(413);
    expect(await over.json()).toEqual({ errors: [{ message: 'The request body exceeds 2048 bytes', extensions: { code: 'PAYLOAD_TOO_LARGE' } }] });
    expect(h.mock.calls()).toBe(1);
  });

  it('refuses a 10 MB gzip bomb with 413 as soon as it decodes past the limit, before the rest arrives, and stays healthy', async () => {
    h = await startGateway();
    const bomb = zlib.gzipSync(Buffer.alloc(10 * 1024 * 1024));
    expect(bomb.length).toBeLessThan(20_000);
    const whole = await postEncoded(h, 'gzip', bomb);
    expect(whole.status).toBe(413);
    expect(((await whole.json()) as any).errors[0].extensions.code).toBe('PAYLOAD_TOO_LARGE');

    // Half the bomb (5 MB once decoded), and the request left open: the answer comes anyway.
    const { hostname, port } = new URL(h.url);
    const status = await new Promise<number>((resolve, reject) => {
      const outgoing = request({
        host: hostname, port, method: 'POST', path: '/graphql',
        headers: { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': bomb.length },
      }, (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
        outgoing.destroy();
      });
      outgoing.on('error', reject);
      outgoing.write(bomb.subarray(0, bomb.length >> 1));
    });
    expect(status).toBe(413);
    const after = await postEncoded(h, 'br', zlib.brotliCompressSync(Buffer.from(QUERY)));
    expect(after.status).toBe(200);
  });

  it('answers an encoding it does not read with 415 UNSUPPORTED_MEDIA_TYPE, naming those it reads', async () => {
    h = await startGateway();
    for (const encoding of ['compress', 'gzip, br', 'snappy']) {
      const response = await postEncoded(h, encoding, Buffer.from(QUERY));
      expect(response.status).toBe(415);
      expect(response.headers.get('accept-encoding')).toMatch(/^gzip, deflate, br/);
      expect(((await response.json()) as any).errors[0]).toEqual({
        message: expect.stringMatching(/^The request body's Content-Encoding must be one of: gzip, deflate, br/),
        extensions: { code: 'UNSUPPORTED_MEDIA_TYPE' },
      });
    }
    expect(h.mock.calls()).toBe(0);
  });

  it('answers corrupt or truncated compressed data with 400 BAD_REQUEST, quoting none of it', async () => {
    h = await startGateway();
    const truncated = zlib.gzipSync(Buffer.from(QUERY)).subarray(0, 20);
    for (const [encoding, body] of [['gzip', Buffer.from(QUERY)], ['br', Buffer.from(QUERY)], ['gzip', truncated]] as const) {
      const response = await postEncoded(h, encoding, body);
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({ errors: [{ message: `The request body is not valid ${encoding} data`, extensions: { code: 'BAD_REQUEST' } }] });
    }
    // Decoded, the body goes on as if sent plain: broken JSON gets yoga's 400, without the parser's words.
    const broken = await postEncoded(h, 'gzip', zlib.gzipSync(Buffer.from('{"query":')));
    expect(broken.status).toBe(400);
    expect(await broken.json()).toEqual({ errors: [{ message: 'POST body sent invalid JSON.', extensions: { code: 'BAD_REQUEST' } }] });
    expect(h.mock.calls()).toBe(0);
  });
});
