/** Brotli streams of a shape the gateway must read: one flushed before its end. */
import { constants, createBrotliCompress } from 'node:zlib';

/** Brotli in a 16 MiB window, flushed after `first`: its first meta-block is not its last. */
export function flushedBrotli(first: Buffer, rest: Buffer): Promise<Buffer> {
  return new Promise((resolve) => {
    const encoder = createBrotliCompress({ params: { [constants.BROTLI_PARAM_LGWIN]: 24 } });
    const parts: Buffer[] = [];
    encoder.on('data', (part: Buffer) => parts.push(part)).on('end', () => resolve(Buffer.concat(parts)));
    encoder.write(first);
    encoder.flush(() => encoder.end(rest));
  });
}
