/**
 * Compressed answers for every HTTP door: one decision of which coding a whole JSON answer is sent
 * in, and one way to make it. An answer of `COMPRESSION_MIN_BYTES` or more gets the coding
 * negotiate.ts picks and `Vary: Accept-Encoding` even when sent identity; smaller ones and
 * incremental media types never vary. A client refusing every coding gets identity (RFC 9110
 * §12.5.3). A stored answer is compressed once per coding and kept with its entry, with its own
 * ETag. Compression is synchronous, at levels fast enough for the event loop.
 */
import * as zlib from 'node:zlib';
import type { ResponseCache, StoredResponse } from '../response-cache/store.js';
import { negotiate, type Coding } from './negotiate.js';
import { varyWith } from './vary.js';

export interface CompressionOptions {
  /** Whether answers are compressed at all (`COMPRESSION`). */
  on: boolean;
  /** The smallest answer compressed, in bytes (`COMPRESSION_MIN_BYTES`). */
  minBytes: number;
  cache: Pick<ResponseCache, 'encoded'>;
  /** Told of each compression made. Default: none. */
  onCompressed?: (coding: Coding) => void;
}

/** A whole answer as it is to be sent. */
export interface SentAnswer {
  body: Uint8Array;
  coding: Coding;
  /** The stored answer's ETag in this coding; undefined when not stored. */
  etag: string | undefined;
  /** Whether another `Accept-Encoding` could get other bytes (`Vary: Accept-Encoding`). */
  vary: boolean;
}

export interface Compression {
  readonly on: boolean;
  readonly minBytes: number;
  /** How to send `body`, a whole answer of `contentType`; `stored`: its response-cache entry. */
  answer(acceptEncoding: string | null | undefined, contentType: string | null | undefined, body: Uint8Array, stored?: StoredResponse): SentAnswer;
}

/** Brotli's quality for dynamic JSON (0–11; 11 is for build-time assets). */
const BROTLI_QUALITY = 5;
/** zstd's level (1–22). */
const ZSTD_LEVEL = 6;

const ON_CODING = ['Accept-Encoding'];

const COMPRESSIBLE = /^application\/(?:graphql-response\+)?json\s*(?:;|$)/i;

export function createCompression({ on, minBytes, cache, onCompressed }: CompressionOptions): Compression {
  // The last content type's test is kept: answers come in a few, each the same string every time.
  let lastType: string | null | undefined;
  let lastCompressible = false;
  const compressible = (type: string | null | undefined): boolean => {
    if (type !== lastType) {
      lastType = type;
      lastCompressible = COMPRESSIBLE.test(type ?? '');
    }
    return lastCompressible;
  };
  return {
    on,
    minBytes,
    answer(acceptEncoding, contentType, body, stored) {
      if (!on || body.byteLength < minBytes || !compressible(contentType)) {
        return { body, coding: 'identity', etag: stored?.etag, vary: false };
      }
      const coding = negotiate(acceptEncoding ?? undefined) ?? 'identity';
      if (coding === 'identity') return { body, coding, etag: stored?.etag, vary: true };
      const make = (bytes: Uint8Array) => {
        onCompressed?.(coding);
        return compress(bytes, coding);
      };
      if (stored === undefined) return { body: make(body), coding, etag: undefined, vary: true };
      const encoded = cache.encoded(stored, coding, make);
      return { body: encoded.body, coding, etag: encoded.etag, vary: true };
    },
  };
}

/** `body` in `coding` (not identity). */
function compress(body: Uint8Array, coding: Exclude<Coding, 'identity'>): Buffer {
  switch (coding) {
    case 'br':
      return zlib.brotliCompressSync(body, {
        params: {
          [zlib.constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
          [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
          [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.byteLength,
        },
      });
    case 'zstd':
      return zlib.zstdCompressSync(body, { params: { [zlib.constants.ZSTD_c_compressionLevel]: ZSTD_LEVEL } });
    case 'gzip':
      return zlib.gzipSync(body);
  }
}

/** The headers `sent` sets on an answer whose `Vary` is `vary` (extended, not replaced). */
export function codingHeaders(sent: SentAnswer, vary: string | null | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  if (sent.coding !== 'identity') headers['content-encoding'] = sent.coding;
  if (sent.vary) headers.vary = varyWith(vary, ON_CODING);
  if (sent.etag !== undefined) headers.etag = sent.etag;
  return headers;
}
