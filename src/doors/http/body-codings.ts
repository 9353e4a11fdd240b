/**
 * The codings a request body may be sent in (`Content-Encoding`): each one's streaming decoder,
 * and the state that decoder holds of its own, which the decoding budget counts: a window for
 * gzip and deflate, a block and a window capped at 8 MiB for zstd (RFC 8878's advice), and for
 * br the ring buffer its first bytes declare.
 */
import * as zlib from 'node:zlib';
import type { Transform } from 'node:stream';
import { brotliHeader } from './brotli-header.js';
import { DECODER_BYTES } from './decoding-budget.js';

export interface DecoderState {
  /** Bytes the decoder holds of its own, at most. */
  bytes: number;
  /** Bytes the stream declares it decodes to, at least (0: it does not say). */
  declared: number;
}

export interface Coding {
  decoder(): Transform;
  /** What its decoder takes, once `prefix` (the body's first bytes) tells; else undefined. */
  state(prefix: Buffer): DecoderState | undefined;
}

/** A zstd window of 2^23 bytes at most. */
const ZSTD_WINDOW_LOG_MAX = 23;
const ZSTD_STATE_BYTES = 262_144;

const inflating: DecoderState = { bytes: DECODER_BYTES, declared: 0 };
const zstd = (zlib as { createZstdDecompress?: (options?: zlib.ZstdOptions) => Transform }).createZstdDecompress;

export const CODINGS: Readonly<Record<string, Coding>> = {
  gzip: { decoder: () => zlib.createGunzip(), state: () => inflating },
  'x-gzip': { decoder: () => zlib.createGunzip(), state: () => inflating }, // RFC 9110 §8.4.1.3: the same as gzip
  deflate: { decoder: () => zlib.createInflate(), state: () => inflating },
  br: {
    decoder: () => zlib.createBrotliDecompress(),
    state(prefix) {
      const header = brotliHeader(prefix);
      return header && { bytes: DECODER_BYTES + header.ringBytes, declared: header.declared };
    },
  },
  ...(zstd === undefined ? {} : {
    zstd: {
      decoder: () => zstd.call(zlib, { params: { [zlib.constants.ZSTD_d_windowLogMax]: ZSTD_WINDOW_LOG_MAX } }),
      state: () => ({ bytes: ZSTD_STATE_BYTES, declared: 0 }),
    },
  }),
};

export const ENCODINGS = Object.keys(CODINGS).filter((name) => name !== 'x-gzip').join(', ');

/** The one coding a body was sent with (`identity` is none), lower case; a list is returned whole and matches none. */
export function contentEncoding(header: string | undefined): string | undefined {
  const codings = (header ?? '').toLowerCase().split(',').map((one) => one.trim()).filter((one) => one !== '' && one !== 'identity');
  return codings.length === 0 ? undefined : codings.join(', ');
}
