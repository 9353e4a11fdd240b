/**
 * Compressed bodies cost the gateway what their senders pay for: the bytes bodies being decoded
 * hold are bounded together (`MAX_DECODING_BYTES`, 503 `SERVER_BUSY` past it), a body decodes to
 * at most 100 times its size as sent (or 64 KiB) before it gets 413, and a stalled compressed body
 * gets its 408 as a stalled plain one does.
 */
import { randomBytes } from 'node:crypto';
import { brotliCompressSync } from 'node:zlib';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DECODED_FLOOR } from '../../../src/doors/http/body.js';
import { DECODER_BYTES } from '../../../src/doors/http/decoding-budget.js';
import { BR_BOMB, chunk, chunkedPost, LAST_CHUNK, openRaw, startBodyGateway, type BodyGateway, type RawConnection } from './raw-body.js';
import { flushedBrotli } from '../../helpers/brotli.js';

const MIB = 1_048_576;
const QUERY = '{ cities { total } }';
/** Held bodies are let go by their connections' close: the server's events, waited for. */
const RELEASED = { timeout: 10_000, interval: 20 };

/** A JSON request padded with `padding` (whitespace) between its tokens. */
const padded = (padding: string) => Buffer.from(`{"query":${JSON.stringify(QUERY)}${padding}}`);
/** Random whitespace: it compresses about 4 times, far under the ratio. */
const randomWhitespace = (length: number) => [...randomBytes(length)].map((byte) => ' \n\t\r'[byte & 3]).join('');


describe('decoding compressed bodies', () => {
  let g: BodyGateway | undefined;
  const open: RawConnection[] = [];
  afterEach(async () => {
    for (const connection of open.splice(0)) connection.destroy();
    await g?.close();
    g = undefined;
  });
  const raw = (headers: Record<string, string> = { 'content-encoding': 'br' }) => {
    const connection = openRaw(g!.server.url, chunkedPost(headers));
    open.push(connection);
    return connection;
  };
  const sendWhole = (body: Buffer) => {
    const connection = raw();
    connection.write(Buffer.concat([chunk(brotliCompressSync(body)), Buffer.from(LAST_CHUNK)]));
    return connection.answer;
  };

  it('decodes at most MAX_DECODING_BYTES at once: of 200 stalled br bodies, those past the budget get 503 SERVER_BUSY at once', async () => {
    g = await startBodyGateway({ env: { MAX_DECODING_BYTES: String(MIB) } });
    const held = MIB / DECODER_BYTES; // 16 decoders, nothing decoded yet
    const connections = Array.from({ length: 200 }, () => raw());
    const refused = connections.slice(held);
    for (const answer of await Promise.all(refused.map((connection) => connection.answer))) {
      expect(answer.status).toBe(503);
      expect(answer.headers['retry-after']).toBe('1');
      expect(answer.body.errors[0].extensions.code).toBe('SERVER_BUSY');
    }
    expect(g.server.decodingBytes()).toBe(MIB);
    // The first 16 are still decoding: their bomb is refused, by the budget they fill or by the
    // ratio, and each gives back what it held.
    for (const connection of connections.slice(0, held)) connection.write(chunk(BR_BOMB));
    for (const connection of connections.slice(0, held)) expect([413, 503]).toContain((await connection.answer).status);
    await vi.waitFor(() => expect(g!.server.decodingBytes()).toBe(0), RELEASED);
    expect((await sendWhole(padded(''))).status).toBe(200);
  });

  it('refuses a body whose decoding would pass the budget others hold, and decodes it once they are gone', async () => {
    g = await startBodyGateway({ env: { MAX_DECODING_BYTES: String(MIB) } });
    const holders = Array.from({ length: MIB / DECODER_BYTES - 1 }, () => raw());
    await vi.waitFor(() => expect(g!.server.decodingBytes()).toBe(MIB - DECODER_BYTES), RELEASED);
    const body = padded(randomWhitespace(200_000));
    const busy = await sendWhole(body);
    expect([busy.status, busy.body.errors[0].extensions.code]).toEqual([503, 'SERVER_BUSY']);
    for (const holder of holders) holder.destroy();
    await vi.waitFor(() => expect(g!.server.decodingBytes()).toBe(0), RELEASED);
    const decoded = await sendWhole(body);
    expect([decoded.status, decoded.body.data]).toEqual([200, { cities: { total: expect.any(Number) } }]);
  });

  it("counts a brotli decoder's ring buffer as the stream's first bytes declare it, before the decoder gets them", async () => {
    g = await startBodyGateway({ env: { MAX_DECODING_BYTES: String(16 * MIB) } });
    // A 16 MiB window whose first meta-block is not its last: later ones may fill all of it at once.
    const wide = await flushedBrotli(padded('').subarray(0, 10), Buffer.from(padded(' '.repeat(500_000)).subarray(10)));
    const holder = raw();
    await vi.waitFor(() => expect(g!.server.decodingBytes()).toBe(DECODER_BYTES), RELEASED);
    const wideBody = raw();
    wideBody.write(chunk(wide));
    const answer = await wideBody.answer;
    expect([answer.status, answer.body.errors[0].extensions.code]).toEqual([503, 'SERVER_BUSY']);
    // Over the body limit by what it declares: 413 before anything is decoded.
    const over = raw();
    over.write(chunk(brotliCompressSync(Buffer.alloc(2 * MIB, 0x20))));
    expect((await over.answer).body.errors[0]).toEqual({ message: `The request body exceeds ${MIB} bytes`, extensions: { code: 'PAYLOAD_TOO_LARGE' } });
    holder.destroy();
    await vi.waitFor(() => expect(g!.server.decodingBytes()).toBe(0), RELEASED);
  });

  it('refuses the 14-byte br bomb with 413 once it decodes past 64 KiB, while its request is still open', async () => {
    g = await startBodyGateway({});
    const connection = raw();
    connection.write(chunk(BR_BOMB)); // and never the last chunk
    const answer = await connection.answer;
    expect(answer.status).toBe(413);
    expect(answer.body).toEqual({
      errors: [{
        message: 'The request body decodes to more than 100 times its size as sent (and more than 65536 bytes): send it less compressed, or plain',
        extensions: { code: 'PAYLOAD_TOO_LARGE' },
      }],
    });
    await vi.waitFor(() => expect(g!.server.decodingBytes()).toBe(0), RELEASED);
    expect(g.h.mock.calls()).toBe(0);
  });

  it('decodes a small body however well it compresses, and a large one that compresses as JSON does', async () => {
    g = await startBodyGateway({});
    const small = padded(' '.repeat(DECODED_FLOOR - 100));
    expect(brotliCompressSync(small).length * 100).toBeLessThan(small.length);
    const large = padded(randomWhitespace(500_000));
    for (const body of [small, large]) {
      const answer = await sendWhole(body);
      expect([answer.status, answer.body.data]).toEqual([200, { cities: { total: expect.any(Number) } }]);
    }
  });

  it('answers a stalled compressed body with 408 as it answers a stalled plain one, and lets go of what it decoded', async () => {
    g = await startBodyGateway({}, { headersTimeoutMs: 500, requestTimeoutMs: 1000, checkIntervalMs: 100 });
    const stream = brotliCompressSync(padded(randomWhitespace(300_000)));
    const compressed = raw();
    compressed.write(chunk(stream.subarray(0, stream.length >> 1)));
    const plain = raw({});
    plain.write(chunk(padded('').subarray(0, 10)));
    await vi.waitFor(() => expect(g!.server.decodingBytes()).toBeGreaterThan(DECODER_BYTES), RELEASED);
    for (const connection of [compressed, plain]) {
      const answer = await connection.answer;
      expect([answer.status, answer.body.errors[0].extensions.code]).toEqual([408, 'REQUEST_TIMEOUT']);
      await connection.closed;
    }
    await vi.waitFor(() => expect(g!.server.decodingBytes()).toBe(0), RELEASED);
  });
});
