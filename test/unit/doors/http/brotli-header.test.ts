import { brotliCompressSync, constants } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { brotliHeader } from '../../../../src/doors/http/brotli-header.js';
import { flushedBrotli } from '../../../helpers/brotli.js';

const MIB = 1_048_576;
const spaces = (bytes: number) => Buffer.alloc(bytes, 0x20);


describe("a brotli stream's header", () => {
  it('says a one-shot stream takes the power of two that holds what it declares, at least 1 KiB', () => {
    expect(brotliHeader(brotliCompressSync(spaces(1_040_000)))).toEqual({ ringBytes: MIB, declared: 1_040_000 });
    expect(brotliHeader(brotliCompressSync(spaces(30)))).toEqual({ ringBytes: 1024, declared: 30 });
    expect(brotliHeader(brotliCompressSync(spaces(16_000_000), { params: { [constants.BROTLI_PARAM_LGWIN]: 24 } }))).toEqual({ ringBytes: 16 * MIB, declared: 16_000_000 });
    // In Node's window (WBITS 22), the encoder makes meta-blocks of 8 MiB: the first is not the last, and the window bounds it.
    expect(brotliHeader(brotliCompressSync(spaces(16_000_000)))).toEqual({ ringBytes: 4 * MIB, declared: 8 * MIB });
  });

  it('says a stream whose first meta-block is not its last may take its whole window', async () => {
    expect(brotliHeader(await flushedBrotli(spaces(100), spaces(10_000_000)))).toEqual({ ringBytes: 16 * MIB, declared: 100 });
  });

  it('tells nothing from too few bytes, and that an empty stream takes nothing', () => {
    const stream = brotliCompressSync(spaces(1_040_000));
    expect(brotliHeader(stream.subarray(0, 1))).toBeUndefined();
    expect(brotliHeader(Buffer.alloc(0))).toBeUndefined();
    expect(brotliHeader(brotliCompressSync(Buffer.alloc(0)))).toEqual({ ringBytes: 0, declared: 0 });
  });
});
