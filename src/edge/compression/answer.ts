/**
 * Compressed answers, for every HTTP door (yoga's path through plugins/serving/use-compression.ts
 * and use-response-cache.ts, the lean path in edge/lean/lean-path.ts): one decision of which
 * coding a whole JSON answer is sent in, and one way to make it.
 *
 * - A whole JSON answer of `COMPRESSION_MIN_BYTES` or more is sent in the coding negotiate.ts
 *   picks from `Accept-Encoding`, and says `Vary: Accept-Encoding` even when sent identity: the
 *   same request with another header may get other bytes. Smaller ones, and every other media
 *   type (multipart/mixed and text/event-stream: incremental answers are sent identity), never
 *   vary. A client that refuses identity and every coding we make gets identity all the same
 *   (RFC 9110 §12.5.3 allows it; a 406 would only break it).
 * - A stored answer (response-cache/store.ts) is compressed once per coding and kept with its
 *   entry, with an ETag of its own; any other answer is compressed as it is sent.
 * - Levels (README "Compression"): brotli at quality 5 and zstd at level 6 make the bench's 50-site
 *   page (256,329 bytes) about 19,300 bytes in a few milliseconds, gzip (level 6) 23,673; brotli's
 *   quality 11 saves a quarter more but took 1.5 s a page. Compression is synchronous:
 *   answers are made on the event loop anyway, and a stored one is compressed once per coding.
 */
import * as zlib from 'node:zlib';
import type { ResponseCache, StoredResponse } from '../../response-cache/store.js';
import { negotiate, type Coding } from './negotiate.js';
import { varyWith } from '../headers/vary.js';

export interface CompressionOptions {
  /** `COMPRESSION`: whether answers are compressed at all (off behind a proxy that compresses). */
  on: boolean;
  /** `COMPRESSION_MIN_BYTES`: the smallest answer compressed, in bytes as made. */
  minBytes: number;
  /** Where stored answers keep their compressed forms. */
  cache: Pick<ResponseCache, 'encoded'>;
  /** Told of each compression made (the metric `gateway_compressions_total`). Default: none. */
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
  /** Answers smaller than this many bytes are sent identity (`COMPRESSION_MIN_BYTES`). */
  readonly minBytes: number;
  /** How to send `body`, a whole answer of `contentType`; `stored`: its response-cache entry. */
  answer(acceptEncoding: string | null | undefined, contentType: string | null | undefined, body: Uint8Array, stored?: StoredResponse): SentAnswer;
}

/** Brotli's quality for dynamic JSON (0–11; its default, 11, is for assets compressed once at build). */
const BROTLI_QUALITY = 5;
/** zstd's level (1–22; its default, 3, made the 50-site page larger than gzip's 6 does). */
const ZSTD_LEVEL = 6;

/** What an answer that may be sent in another coding varies on. */
const ON_CODING = ['Accept-Encoding'];

/** Media types compressed: whole JSON answers. */
const COMPRESSIBLE = /^application\/(?:graphql-response\+)?json\s*(?:;|$)/i;

export function createCompression({ on, minBytes, cache, onCompressed }: CompressionOptions): Compression {
  // Answers come in a few content types, each the same string every time: the last one's test is kept.
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

/** The headers `sent` sets on an answer whose `Vary` is `vary` (extended, not replaced: edge/headers/vary.ts). */
export function codingHeaders(sent: SentAnswer, vary: string | null | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  if (sent.coding !== 'identity') headers['content-encoding'] = sent.coding;
  if (sent.vary) headers.vary = varyWith(vary, ON_CODING);
  if (sent.etag !== undefined) headers.etag = sent.etag;
  return headers;
}
