/**
 * One static file as the explorer serves it: each coding compressed once, on its first ask, off
 * the event loop, and kept, so a large script costs one compression per process, not per visit.
 * The ETag is the content's hash with the coding (each encoding is its own representation);
 * `If-None-Match` gets 304.
 */
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import * as zlib from 'node:zlib';
import { CODINGS, negotiate, type Coding } from '../../encoding/negotiate.js';
import { encodedEtag, etagMatches } from '../../response-cache/etag.js';
import { varyWith } from '../../encoding/vary.js';

/** How a static file is answered, besides its bytes. */
export interface StaticOptions {
  /** Its `Content-Type`. */
  type: string;
  /** Its `Cache-Control`: `immutable` for a hashed name, `no-cache` (revalidated) for a page. */
  cacheControl: string;
  /** More headers for every answer (a page's content security policy). */
  headers?: Record<string, string>;
  /** What else the answer at this URL depends on, named in `Vary` before `Accept-Encoding`. */
  vary?: string;
  /** Whether to compress at all; false: identity always, no `Accept-Encoding` in `Vary`. */
  compress?: boolean;
}

export interface StaticAsset {
  /** The content's hash, hex (16 digits): the hashed name of an asset. */
  hash: string;
  /** The answer to a GET or HEAD of this file, in the coding its `Accept-Encoding` asks for. */
  respond(request: Request, fetchAPI: { Response: typeof Response }): Promise<Response>;
}

/** Below this many bytes a file is sent as it is: compressing saves less than a packet. */
const MIN_BYTES = 1024;

/** `Cache-Control` of a file whose name holds its hash: it never changes. */
export const IMMUTABLE = 'public, max-age=31536000, immutable';

/** A compressor for each coding but identity. */
export type Compressors = Record<Exclude<Coding, 'identity'>, (body: Buffer) => Promise<Buffer>>;

const { constants } = zlib;
/** zlib's: brotli 9, gzip 9, zstd 10. */
export const COMPRESSORS: Compressors = {
  br: (body) => promisify(zlib.brotliCompress)(body, {
    params: { [constants.BROTLI_PARAM_QUALITY]: 9, [constants.BROTLI_PARAM_SIZE_HINT]: body.length },
  }),
  gzip: (body) => promisify(zlib.gzip)(body, { level: 9 }),
  zstd: (body) => promisify(zlib.zstdCompress)(body, { params: { [constants.ZSTD_c_compressionLevel]: 10 } }),
};

/** The hex hash (16 digits of SHA-256) of `body`, for hashed names and ETags. */
function contentHash(body: Buffer | string): string {
  return createHash('sha256').update(body).digest('hex').slice(0, 16);
}

/** A static file of `body`, answered as `options` say; `compressors` are zlib's but in tests that count runs. */
export function createStaticAsset(body: Buffer, options: StaticOptions, compressors: Compressors = COMPRESSORS): StaticAsset {
  const hash = contentHash(body);
  const offered = options.compress === false || body.length < MIN_BYTES ? [] : CODINGS;
  const encoded = new Map<Coding, Promise<Buffer>>([['identity', Promise.resolve(body)]]);
  const base: Record<string, string> = {
    'content-type': options.type,
    'cache-control': options.cacheControl,
    'x-content-type-options': 'nosniff',
    ...options.headers,
  };
  const vary = varyWith(options.vary, offered.length > 0 ? ['Accept-Encoding'] : []);
  if (vary !== '') base.vary = vary;
  return {
    hash,
    async respond(request, fetchAPI) {
      // A client refusing identity and all of ours still gets identity, as RFC 9110 §12.5.3 allows.
      const coding = negotiate(request.headers.get('accept-encoding') ?? undefined, offered) ?? 'identity';
      const etag = coding === 'identity' ? `"${hash}"` : encodedEtag(`"${hash}"`, coding);
      if (etagMatches(request.headers.get('if-none-match'), etag)) {
        return new fetchAPI.Response(null, { status: 304, headers: { ...base, etag } });
      }
      const bytes = await encodedAs(coding);
      const headers: Record<string, string> = { ...base, etag, 'content-length': String(bytes.length) };
      if (coding !== 'identity') headers['content-encoding'] = coding;
      return new fetchAPI.Response(request.method === 'HEAD' ? null : new Uint8Array(bytes), { status: 200, headers });
    },
  };

  // Private: the body in `coding`, compressed on the first ask; a failed run is forgotten.
  function encodedAs(coding: Coding): Promise<Buffer> {
    let bytes = encoded.get(coding);
    if (bytes === undefined) {
      bytes = compressors[coding as Exclude<Coding, 'identity'>](body);
      encoded.set(coding, bytes);
      bytes.catch(() => encoded.delete(coding));
    }
    return bytes;
  }
}
