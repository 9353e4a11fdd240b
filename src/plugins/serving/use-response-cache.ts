/**
 * The warm path: whole responses, as the bytes sent, reused for identical operations.
 *
 * - Key: the operation that executes, as yoga parsed and graphql-js coerced it
 *   (response-cache-key.ts), never the request's own text: two requests share an entry if and
 *   only if they run the same operation with the same variables. Ambiguous requests (a URL
 *   parameter given twice, a non-JSON body, a batch) are never looked up nor stored.
 * - A hit is answered when execution would start: after every guard has run (API keys, rate
 *   limit, CSRF prevention, the request parser's own checks, persisted operations, parsing,
 *   validation and the query limits), and before execution and serialisation. The bytes stored
 *   replace the result's serialisation.
 * - Only complete answers are stored: no errors, nothing stale, nothing stating its data's age
 *   (the catalog index's answers) or made of the time now (the request scope expires those). An
 *   entry lives until the first of the data it contains stops being fresh (the shared cache tells
 *   each lookup's expiry), so it is never staler than the data cache itself would be.
 * - `ETag` on every stored answer; a GET whose `If-None-Match` matches it (RFC 9110's weak
 *   comparison, a list or `*`) gets 304.
 * - Memory: the store is bounded in bytes, each entry counted with its key and a fixed overhead.
 * - What the HTTP caches downstream are told (`Cache-Control`, `Age`, `Vary`) is
 *   use-http-caching.ts's job; it learns when a served answer was stored from `storedAnswerServed`.
 *
 * Put it after the request scope (whose end must run on a hit too) and before the argument
 * checks and the upstream budget (a stored answer passed them when it was made).
 */
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { Plugin } from 'graphql-yoga';
import type { Clock } from '../../cache/cache.js';
import { answeredWhole, currentRequest } from '../../observability/request-record.js';
import { ambiguousRequest, createKeyMaker } from './response-cache-key.js';

export interface ResponseCacheOptions {
  /** Bytes the stored answers may take together, keys included; 0 turns the cache off. */
  maxBytes: number;
  /** The shared data cache's clock (expiry times come from it). */
  clock: Clock;
}

interface StoredResponse extends StoredAnswerTimes {
  body: ArrayBuffer;
  contentType: string;
  etag: string;
}

/** When a stored answer was stored and when the first of its data stops being fresh (the data cache's clock, ms). */
export interface StoredAnswerTimes {
  storedAt: number;
  expiresAt: number;
}

// Private: the stored answer each request was served, for storedAnswerServed. Keyed by the
// request object, so that gateways sharing this module never see each other's requests.
const served = new WeakMap<Request, StoredAnswerTimes>();

/** The times of the stored answer `request` was served from the response cache, if it was. */
export function storedAnswerServed(request: Request): StoredAnswerTimes | undefined {
  return served.get(request);
}

/** An answer larger than this share of the whole cache is not stored. */
const MAX_ENTRY_SHARE = 0.1;
/** Bytes counted for an entry besides its body: key, ETag, content type and the LRU's own. */
const ENTRY_OVERHEAD_BYTES = 256;

export function useResponseCache({ maxBytes, clock }: ResponseCacheOptions): Plugin<{ request?: Request }> {
  if (maxBytes === 0) return {};
  const store = new LRUCache<string, StoredResponse>({
    maxSize: maxBytes,
    maxEntrySize: Math.floor(maxBytes * MAX_ENTRY_SHARE),
    sizeCalculation: (entry, key) => entry.body.byteLength + key.length + entry.etag.length + ENTRY_OVERHEAD_BYTES,
    perf: clock,
    // lru-cache reuses a clock reading for 1 ms by default; an answer must not outlive its data.
    ttlResolution: 0,
  });
  const keyOf = createKeyMaker();
  const uncacheable = new WeakSet<Request>();
  const keys = new WeakMap<Request, string>();
  const hits = new WeakMap<Request, StoredResponse>();
  let graphqlEndpoint = '/graphql';

  return {
    onYogaInit({ yoga }) {
      graphqlEndpoint = yoga.graphqlEndpoint;
    },
    onRequest({ request, url }) {
      if (url.pathname !== graphqlEndpoint || ambiguousRequest(request, url)) uncacheable.add(request);
    },
    onRequestParse({ request }) {
      return {
        onRequestParseDone({ requestParserResult }) {
          if (Array.isArray(requestParserResult)) uncacheable.add(request);
        },
      };
    },
    onExecute({ args, setResultAndStopExecution }) {
      const request = args.contextValue.request;
      if (request === undefined || uncacheable.has(request)) return;
      const key = keyOf(args, request.headers.get('accept') ?? '');
      if (key === undefined) return;
      const hit = store.get(key);
      const record = currentRequest();
      if (hit === undefined) {
        if (record !== undefined) record.responseCache = 'miss';
        keys.set(request, key);
        return;
      }
      if (record !== undefined) record.responseCache = 'hit';
      hits.set(request, hit);
      served.set(request, hit);
      // The result is never serialised: onResultProcess answers with the stored bytes.
      setResultAndStopExecution({});
    },
    onResultProcess({ request, setResultProcessor }) {
      const hit = hits.get(request);
      if (hit === undefined) return;
      setResultProcessor((_result, fetchAPI) => {
        const headers = { 'content-type': hit.contentType, etag: hit.etag, 'x-cache': 'hit' };
        const notModified = request.method === 'GET' && etagMatches(request.headers.get('if-none-match'), hit.etag);
        return new fetchAPI.Response(notModified ? null : hit.body, { status: notModified ? 304 : 200, headers });
      }, hit.contentType);
    },
    async onResponse({ request, response }) {
      const key = keys.get(request);
      if (key === undefined) return;
      response.headers.set('x-cache', 'miss');
      const record = currentRequest();
      if (record === undefined || !storable(record, response)) return;
      const body = await response.clone().arrayBuffer();
      const storedAt = clock.now();
      const ttl = Math.floor(record.dataExpiresAt - storedAt);
      if (ttl <= 0) return;
      const etag = `"${createHash('sha1').update(new Uint8Array(body)).digest('base64url')}"`;
      const contentType = response.headers.get('content-type') ?? 'application/json';
      store.set(key, { body, contentType, etag, storedAt, expiresAt: record.dataExpiresAt }, { ttl });
      response.headers.set('etag', etag);
    },
  };
}

/**
 * `If-None-Match` against a stored strong ETag, by RFC 9110 §13.1.2: `*` matches; otherwise a
 * comma-separated list of entity tags, compared weakly (a `W/` prefix is ignored).
 */
export function etagMatches(ifNoneMatch: string | null, etag: string): boolean {
  if (ifNoneMatch === null) return false;
  if (ifNoneMatch.trim() === '*') return true;
  for (const candidate of ifNoneMatch.split(',')) {
    const tag = candidate.trim();
    if ((tag.startsWith('W/') ? tag.slice(2) : tag) === etag) return true;
  }
  return false;
}

// Private: a complete answer (no error, nothing stale) made from data whose freshness is known.
function storable(record: NonNullable<ReturnType<typeof currentRequest>>, response: Response): boolean {
  return response.status === 200 && answeredWhole(record) && Number.isFinite(record.dataExpiresAt);
}
