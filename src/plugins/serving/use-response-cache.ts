/**
 * The warm path: whole responses, as the bytes sent, reused for identical requests.
 *
 * - Key: the normalised operation (whitespace folded), its name, variables, persisted-query
 *   hash and the client's `Accept`, so equal requests share an entry however they are laid out.
 * - A hit is answered in `onRequest`, after the plugins that guard the gateway (API keys, rate
 *   limit, CSRF) and before parsing, validation, execution and serialisation.
 * - Only complete answers are stored: no errors, nothing stale, nothing stating its data's age
 *   (the catalog index's answers) or made of the time now (the request scope expires those). An
 *   entry lives until the first of the data it contains stops being fresh (the shared cache tells
 *   each lookup's expiry), so it is never staler than the data cache itself would be.
 * - `ETag` on every stored answer; a GET with a matching `If-None-Match` gets 304.
 *
 * Parsing and validation results are cached by yoga itself (its parser and validation cache).
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { LRUCache } from 'lru-cache';
import type { Plugin } from 'graphql-yoga';
import type { Clock } from '../../cache/cache.js';
import { currentRequest } from '../../observability/request-record.js';

export interface ResponseCacheOptions {
  /** Bytes the stored answers may take together; 0 turns the cache off. */
  maxBytes: number;
  /** The shared data cache's clock (expiry times come from it). */
  clock: Clock;
}

interface StoredResponse {
  body: ArrayBuffer;
  contentType: string;
  etag: string;
}

/** The name of a document's first operation, when it starts with one. */
const NAMED_OPERATION = /^(?:query|mutation|subscription) ([_A-Za-z][_0-9A-Za-z]*)/;

/** An answer larger than this share of the whole cache is not stored. */
const MAX_ENTRY_SHARE = 0.1;

export function useResponseCache({ maxBytes, clock }: ResponseCacheOptions): Plugin<object, { req?: IncomingMessage & { body?: Buffer } }> {
  if (maxBytes === 0) return {};
  const store = new LRUCache<string, StoredResponse>({
    maxSize: maxBytes,
    maxEntrySize: Math.floor(maxBytes * MAX_ENTRY_SHARE),
    sizeCalculation: (entry) => entry.body.byteLength + entry.etag.length + 64,
    perf: clock,
    // lru-cache reuses a clock reading for 1 ms by default; an answer must not outlive its data.
    ttlResolution: 0,
  });
  const keys = new WeakMap<Request, string>();
  let graphqlEndpoint = '/graphql';

  return {
    onYogaInit({ yoga }) {
      graphqlEndpoint = yoga.graphqlEndpoint;
    },
    onRequest({ request, url, serverContext, endResponse, fetchAPI }) {
      if (url.pathname !== graphqlEndpoint) return;
      const key = keyOf(request, url, serverContext.req?.body);
      if (key === undefined) return;
      const hit = store.get(key);
      const record = currentRequest();
      if (hit === undefined) {
        if (record !== undefined) record.responseCache = 'miss';
        return void keys.set(request, key);
      }
      if (record !== undefined) {
        record.responseCache = 'hit';
        record.operations.push(operationNameOf(key) || 'anonymous');
      }
      const headers = { 'content-type': hit.contentType, etag: hit.etag, 'x-cache': 'hit' };
      const notModified = request.method === 'GET' && request.headers.get('if-none-match') === hit.etag;
      endResponse(new fetchAPI.Response(notModified ? null : hit.body, { status: notModified ? 304 : 200, headers }));
    },
    async onResponse({ request, response }) {
      const key = keys.get(request);
      if (key === undefined) return;
      response.headers.set('x-cache', 'miss');
      const record = currentRequest();
      if (record === undefined || !storable(record, response)) return;
      const body = await response.clone().arrayBuffer();
      const ttl = Math.floor(record.dataExpiresAt - clock.now());
      if (ttl <= 0) return;
      const etag = `"${createHash('sha1').update(new Uint8Array(body)).digest('base64url')}"`;
      store.set(key, { body, contentType: response.headers.get('content-type') ?? 'application/json', etag }, { ttl });
      response.headers.set('etag', etag);
    },
  };
}

// Private: a complete answer (no error, nothing stale) made from data whose freshness is known.
function storable(record: NonNullable<ReturnType<typeof currentRequest>>, response: Response): boolean {
  return (
    response.status === 200 &&
    record.errorCodes.size === 0 &&
    record.cacheStale === 0 &&
    record.operations.length === 1 &&
    Number.isFinite(record.dataExpiresAt)
  );
}

// Private: the cache key of a GET or JSON POST GraphQL request; `undefined` when not cacheable.
function keyOf(request: Request, url: URL, body: Buffer | undefined): string | undefined {
  let params: Record<string, unknown>;
  if (request.method === 'GET') {
    params = Object.fromEntries(url.searchParams);
  } else if (request.method === 'POST' && body !== undefined && body.length > 0) {
    try {
      params = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
    } catch {
      return undefined;
    }
    if (typeof params !== 'object' || params === null || Array.isArray(params)) return undefined;
  } else {
    return undefined;
  }
  const query = typeof params.query === 'string' ? params.query.replace(/\s+/g, ' ').trim() : '';
  const hash = persistedHash(params.extensions);
  if (query === '' && hash === undefined) return undefined;
  const variables = typeof params.variables === 'string' ? params.variables : JSON.stringify(params.variables ?? {});
  // The name the operation runs under: the one asked for, else the document's first.
  const name = typeof params.operationName === 'string' ? params.operationName : (NAMED_OPERATION.exec(query)?.[1] ?? '');
  return [request.headers.get('accept') ?? '', name, hash ?? '', query, variables].join('\n');
}

// Private: the operation name a key was made with (its second line).
function operationNameOf(key: string): string {
  return key.split('\n', 2)[1] ?? '';
}

function persistedHash(extensions: unknown): string | undefined {
  const parsed = typeof extensions === 'string' ? safeJson(extensions) : extensions;
  const hash = (parsed as { persistedQuery?: { sha256Hash?: unknown } } | undefined)?.persistedQuery?.sha256Hash;
  return typeof hash === 'string' ? hash : undefined;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
