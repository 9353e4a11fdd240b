/**
 * What a brotli stream's first bytes say of the memory its decoder will take (RFC 7932 §9.1,
 * §9.2): the window and the first meta-block's length. The ring buffer is filled as soon as a
 * meta-block's commands are in, however little output was read, so a few bytes can claim the
 * whole window; the decoding budget counts it before decoding starts.
 */

/** What the header says, or undefined when `prefix` is too short to tell. */
export interface BrotliHeader {
  /** The most the decoder's ring buffer may take, in bytes. */
  ringBytes: number;
  /** The bytes the first meta-block declares it decodes to (0 for an empty or metadata one). */
  declared: number;
}

/** The smallest ring buffer the decoder allocates, in bytes. */
const MIN_RING_BYTES = 1024;

/** The header of a stream starting with `prefix` (5 bytes suffice), or undefined when more is needed. */
export function brotliHeader(prefix: Buffer): BrotliHeader | undefined {
  let bit = 0;
  const read = (count: number): number | undefined => {
    let value = 0;
    for (let i = 0; i < count; i += 1, bit += 1) {
      if (bit >> 3 >= prefix.length) return undefined;
      value |= ((prefix[bit >> 3]! >> (bit & 7)) & 1) << i;
    }
    return value;
  };
  const windowBits = readWindowBits(read);
  if (windowBits === undefined) return undefined;
  const window = 2 ** windowBits;
  const last = read(1);
  if (last === undefined) return undefined;
  if (last === 1) {
    const empty = read(1);
    if (empty === undefined) return undefined;
    if (empty === 1) return { ringBytes: 0, declared: 0 };
  }
  const nibbles = read(2);
  if (nibbles === undefined) return undefined;
  // Metadata first: what follows is unknown, so the whole window may be taken.
  if (nibbles === 3) return { ringBytes: window, declared: 0 };
  const length = read((nibbles + 4) * 4);
  if (length === undefined) return undefined;
  const declared = length + 1;
  return { ringBytes: last === 1 ? Math.min(window, ringFor(declared)) : window, declared };
}

// Private: WBITS, 10 to 24 (a large-window stream, which the decoder refuses, counts as 24).
function readWindowBits(read: (count: number) => number | undefined): number | undefined {
  const first = read(1);
  if (first === undefined) return undefined;
  if (first === 0) return 16;
  const n = read(3);
  if (n === undefined) return undefined;
  if (n !== 0) return 17 + n;
  const m = read(3);
  if (m === undefined) return undefined;
  return m === 1 ? 24 : m === 0 ? 17 : 8 + m;
}

function ringFor(bytes: number): number {
  let size = MIN_RING_BYTES;
  while (size < bytes) size *= 2;
  return size;
}
