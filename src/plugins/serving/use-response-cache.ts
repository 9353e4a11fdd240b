/**
 * The warm path: whole responses, as the bytes sent, reused for identical operations.
 *
 * - Key: the operation that executes, as yoga parsed and graphql-js coerced it
 *   (response-cache/key.ts), never the request's own text: two requests share an entry if and
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
 * - With `REDIS_URL`, a level the replicas share sits behind this one (cache/redis-answers.ts):
 *   a miss here asks it (once per execution, joined by concurrent misses of the key), and a hit
 *   there is kept here for the freshness it has left and served exactly as a hit here; every
 *   answer stored here is written there too. A hit here never waits for a promise, and neither
 *   does anything while no shared level is in use.
 * - What the HTTP caches downstream are told (`Cache-Control`, `Age`, `Vary`) is
 *   use-http-caching.ts's job; it learns when a served answer was stored from `storedAnswerServed`.
 *
 * Put it after the request scope (whose end must run on a hit too) and before the argument
 * checks and the upstream budget (a stored answer passed them when it was made).
 */
import { LRUCache } from 'lru-cache';
import type { DocumentNode, ExecutionArgs } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Clock } from '../../base/clock.js';
import { answerEtag } from '../../cache/answer-codec.js';
import type { SharedAnswers } from '../../cache/redis-answers.js';
import { answeredWhole, currentRequest, type RequestRecord } from '../../request/record.js';
import { ambiguousRequest, createKeyMaker } from '../../response-cache/key.js';
import { createSharedLookUp } from '../../response-cache/shared.js';
import { createUnstorableDocuments } from '../../response-cache/unstorable.js';

export interface ResponseCacheOptions {
  /** Bytes the stored answers may take together, keys included; 0 turns the cache off. */
  maxBytes: number;
  /** The shared data cache's clock (expiry times come from it). */
  clock: Clock;
  /** Answers the replicas share (with `REDIS_URL`): read on a miss here, written with every answer stored here. Default: none. */
  shared?: SharedAnswers;
}

/** An answer as stored: its bytes, media type and ETag, with its times. */
export interface StoredResponse extends StoredAnswerTimes {
  body: Uint8Array;
  contentType: string;
  etag: string;
}

/**
 * When a stored answer was stored and when the first of its data stops being fresh (the data
 * cache's clock, ms). An answer another replica stored has its times moved onto this clock.
 */
export interface StoredAnswerTimes {
  storedAt: number;
  expiresAt: number;
}

/** Stores an answer just made, if it may be stored; its ETag when it was. */
export type StoreAnswer = (status: number, body: ArrayBuffer | Uint8Array, contentType: string) => string | undefined;

// Private: per request, the stored answer it was served (storedAnswerServed), or how to store the
// answer it misses (answerToStore). Keyed by the request object, so that gateways sharing this
// module never see each other's requests; the lean path's requests are objects of their own.
const served = new WeakMap<object, StoredResponse>();
const toStore = new WeakMap<object, StoreAnswer>();

/** The stored answer `request` was served from the response cache, if it was. */
export function storedAnswerServed(request: object): StoredResponse | undefined {
  return served.get(request);
}

/** How to store the answer `request` is about to get, when it missed the response cache. */
export function answerToStore(request: object): StoreAnswer | undefined {
  return toStore.get(request);
}

const NO_BYTES = new Uint8Array(0);
/** An answer larger than this share of the whole cache is not stored. */
const MAX_ENTRY_SHARE = 0.1;
/** Bytes counted for an entry besides its body: key, ETag, content type and the LRU's own. */
const ENTRY_OVERHEAD_BYTES = 256;

/** The response cache: its plugin, and the lookups of the lean path. */
export interface ResponseCache {
  plugin: Plugin<{ request?: Request }>;
  /**
   * The key the plugin looks up for these execution arguments (no context needed) and `Accept`
   * header; undefined: never stored. Made once per arguments object: the lean path makes it
   * before it builds a context, and the plugin finds it made when the same arguments execute.
   */
  keyOf(args: ExecutionArgs, accept: string): string | undefined;
  /** The stored answer under a key `keyOf` made; a hit is recorded on the request's record, as the plugin records it. */
  stored(key: string): StoredResponse | undefined;
  /**
   * After a miss of `stored`: the answer the replicas share under `key`, kept here and recorded
   * as `stored` records a hit. No promise (`undefined`) when no shared level is in use, or when
   * these arguments asked already: executed after a shared miss, they do not ask again.
   */
  sharedStored(args: ExecutionArgs, key: string): Promise<StoredResponse | undefined> | undefined;
}

export function useResponseCache(options: ResponseCacheOptions): Plugin<{ request?: Request }> {
  return createResponseCache(options).plugin;
}

export function createResponseCache({ maxBytes, clock, shared }: ResponseCacheOptions): ResponseCache {
  if (maxBytes === 0) return { plugin: {}, keyOf: () => undefined, stored: () => undefined, sharedStored: () => undefined };
  const maxEntryBytes = Math.floor(maxBytes * MAX_ENTRY_SHARE);
  const stored = new LRUCache<string, StoredResponse>({
    maxSize: maxBytes,
    maxEntrySize: maxEntryBytes,
    sizeCalculation: entrySize,
    perf: { now: () => clock.monotonic() },
    // lru-cache reuses a clock reading for 1 ms by default; an answer must not outlive its data.
    ttlResolution: 0,
  });
  const documents = createUnstorableDocuments();
  const keyOf = createKeyMaker(documents.worthKeying);
  const uncacheable = new WeakSet<Request>();
  let graphqlEndpoint = '/graphql';

  const lookUp: ResponseCache['stored'] = (key) => {
    const hit = stored.get(key);
    const record = currentRequest();
    if (hit !== undefined && record !== undefined) record.responseCache = 'hit';
    return hit;
  };
  const lookUpShared = createSharedLookUp(shared, (key, answer) => {
    const now = clock.monotonic();
    const entry = { body: answer.body, contentType: answer.contentType, etag: answer.etag, storedAt: now - answer.ageMs, expiresAt: now + answer.ttlMs };
    stored.set(key, entry, { ttl: answer.ttlMs });
    return entry;
  });
  return { keyOf, stored: lookUp, sharedStored: lookUpShared, plugin: {
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
      const record = currentRequest();
      const serve = (hit: StoredResponse | undefined) => {
        if (hit === undefined) {
          if (record !== undefined) {
            record.responseCache = 'miss';
            toStore.set(request, (status, body, contentType) => store(key, args.document, record, status, body, contentType));
          }
          return;
        }
        if (record !== undefined) record.responseCache = 'hit';
        served.set(request, hit);
        // The result is never serialised: onResultProcess answers with the stored bytes.
        setResultAndStopExecution({});
      };
      const hit = stored.get(key);
      const sharedHit = hit === undefined ? lookUpShared(args, key) : undefined;
      if (sharedHit === undefined) return serve(hit);
      return sharedHit.then(serve);
    },
    onResultProcess({ request, setResultProcessor }) {
      const hit = served.get(request);
      if (hit === undefined) return;
      setResultProcessor((_result, fetchAPI) => {
        const headers = { 'content-type': hit.contentType, etag: hit.etag, 'x-cache': 'hit' };
        const notModified = request.method === 'GET' && etagMatches(request.headers.get('if-none-match'), hit.etag);
        return new fetchAPI.Response(notModified ? null : (hit.body as Uint8Array<ArrayBuffer>), { status: notModified ? 304 : 200, headers });
      }, hit.contentType);
    },
    async onResponse({ request, response }) {
      const storeAnswer = toStore.get(request);
      if (storeAnswer === undefined) return;
      response.headers.set('x-cache', 'miss');
      // Only a whole answer is read back: reading an answer in parts would wait for its last part.
      const record = currentRequest();
      if (record === undefined) return;
      // Declined without reading the answer, but offered all the same: the document learns it.
      if (response.status !== 200 || !storable(record)) return void storeAnswer(response.status, NO_BYTES, 'application/json');
      const contentType = response.headers.get('content-type') ?? 'application/json';
      const etag = storeAnswer(response.status, await response.clone().arrayBuffer(), contentType);
      if (etag !== undefined) response.headers.set('etag', etag);
    },
  } };

  // Private: a complete answer (no error, nothing stale) made from data whose freshness is known,
  // kept until that data stops being fresh.
  function store(
    key: string, document: DocumentNode, record: RequestRecord, status: number, body: ArrayBuffer | Uint8Array, contentType: string,
  ): string | undefined {
    const storedAt = status === 200 && storable(record) ? clock.monotonic() : undefined;
    const ttl = storedAt === undefined ? 0 : Math.floor(record.dataExpiresAt - storedAt);
    documents.offered(document, ttl > 0);
    if (storedAt === undefined || ttl <= 0) return undefined;
    // A view into a larger buffer (Node's pool for small strings) would keep all of it alive.
    const bytes = !(body instanceof Uint8Array) ? new Uint8Array(body) : body.byteLength === body.buffer.byteLength ? body : new Uint8Array(body);
    const etag = answerEtag(bytes);
    const entry = { body: bytes, contentType, etag, storedAt, expiresAt: record.dataExpiresAt };
    stored.set(key, entry, { ttl });
    // Shared exactly when kept here: an answer over the entry cap is neither.
    if (shared !== undefined && entrySize(entry, key) <= maxEntryBytes) shared.write(key, { body: bytes, contentType, etag, ageMs: 0, ttlMs: ttl });
    return etag;
  }
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
function storable(record: RequestRecord): boolean {
  return answeredWhole(record) && Number.isFinite(record.dataExpiresAt);
}

// Private: the bytes an entry is counted for: its body, key, ETag and a fixed overhead.
function entrySize(entry: StoredResponse, key: string): number {
  return entry.body.byteLength + key.length + entry.etag.length + ENTRY_OVERHEAD_BYTES;
}
