/**
 * Whole answers, as the bytes sent, kept for identical operations until the first of their data
 * stops being fresh; only what the request object calls storable. Bounded in bytes (each entry for
 * all it keeps alive), with an optional level the replicas share behind it; compressed forms are
 * made once per entry, and tags are indexed so a purge finds every answer built from its data.
 */
import { LRUCache } from 'lru-cache';
import type { DocumentNode, ExecutionArgs } from 'graphql';
import type { Clock } from '../base/clock.js';
import { answerEtag } from '../cache/answer-codec.js';
import { dropped as droppedAt, DropIncomplete } from '../cache/cache.js';
import { encodedEtag } from './etag.js';
import type { SharedAnswers } from '../cache/redis-answers.js';
import type { GatewayRequest, ResultErrors } from '../request/request.js';
import type { StoredResponse } from '../request/stored.js';
import { createKeyMaker } from './key.js';
import { entrySize } from './entry-size.js';
import { createTagIndex } from './tag-index.js';
import { createSharedLookUp } from './shared.js';
import { createUnstorableDocuments } from './unstorable.js';

export interface ResponseCacheOptions {
  /** Bytes the stored answers may take together, keys included; 0 turns the cache off. */
  maxBytes: number;
  /** The clock of expiry times (its monotonic face). */
  clock: Clock;
  /** Answers the replicas share: read on a miss here, written with every answer stored. Default: none. */
  shared?: SharedAnswers;
}

export type { StoreAnswer, StoredAnswerTimes, StoredResponse } from '../request/stored.js';
export { storedAnswerOf } from '../request/stored.js';

/** A stored answer in a content coding, with its ETag in that coding. */
export interface EncodedAnswer {
  body: Uint8Array;
  etag: string;
}

/** An answer larger than this share of the whole cache is not stored. */
const MAX_ENTRY_SHARE = 0.1;

/** The response cache: its lookups, for every door, and what its plugin needs besides. */
export interface ResponseCache {
  /** Whether it is on (a byte budget above 0). */
  readonly on: boolean;
  /** The key for these execution arguments and `Accept`, made once per arguments object; undefined: never stored. */
  keyOf(args: ExecutionArgs, accept: string): string | undefined;
  /** The stored answer under a key `keyOf` made; a hit is recorded on `request`. */
  stored(key: string, request: GatewayRequest | undefined): StoredResponse | undefined;
  /** After a miss of `stored`: the replicas' shared answer under `key`, kept here (shared.ts); a hit is recorded on `request`. */
  sharedStored(args: ExecutionArgs, key: string, request: GatewayRequest | undefined): Promise<StoredResponse | undefined> | undefined;
  /** `request` missed `key`: its `toStore` stores its answer, as it says it may. */
  miss(request: GatewayRequest, key: string, document: DocumentNode): void;
  /** `hit` in `coding`: the form kept with it, else `make`'s, kept while the entry is (within the entry cap). */
  encoded(hit: StoredResponse, coding: string, make: (body: Uint8Array) => Uint8Array): EncodedAnswer;
  /** Drops every answer stored with one of `tags`, here and (`shared`) in Redis; rejects `DropIncomplete`. */
  purge(tags: readonly string[], shared: boolean): Promise<number>;
}

export function createResponseCache({ maxBytes, clock, shared }: ResponseCacheOptions): ResponseCache {
  if (maxBytes === 0) {
    return {
      on: false, keyOf: () => undefined, stored: () => undefined, sharedStored: () => undefined, miss() {}, purge: async () => 0,
      encoded: (hit, coding, make) => ({ body: make(hit.body), etag: encodedEtag(hit.etag, coding) }),
    };
  }
  const maxEntryBytes = Math.floor(maxBytes * MAX_ENTRY_SHARE);
  const index = createTagIndex();
  const entries = new LRUCache<string, StoredResponse>({
    maxSize: maxBytes,
    maxEntrySize: maxEntryBytes,
    sizeCalculation: entrySize,
    perf: { now: () => clock.monotonic() },
    // lru-cache reuses a clock reading for 1 ms by default; an answer must not outlive its data.
    ttlResolution: 0,
    // Replaced (`set`): `put` already moved the index on, or it is a copy keeping its tags.
    dispose: (entry, key, reason) => void (reason !== 'set' && index.remove(key, entry.tags)),
  });
  const keys = new WeakMap<StoredResponse, string>();
  const fit = () => {
    while (entries.size > 0 && entries.calculatedSize + index.bytes > maxBytes) entries.pop();
  };
  const put = (key: string, entry: StoredResponse, ttl: number) => {
    index.remove(key, entries.peek(key, { allowStale: true })?.tags);
    entries.set(key, entry, { ttl });
    keys.set(entry, key);
    if (entries.has(key)) index.add(key, entry.tags);
    fit();
  };
  const documents = createUnstorableDocuments();
  const sharedStored = createSharedLookUp(shared, (key, answer) => {
    const now = clock.monotonic();
    const entry = { body: answer.body, contentType: answer.contentType, etag: answer.etag, storedAt: now - answer.ageMs, expiresAt: now + answer.ttlMs, tags: answer.tags };
    put(key, entry, answer.ttlMs);
    return entry;
  });
  return {
    on: true,
    keyOf: createKeyMaker(documents.worthKeying),
    stored(key, request) {
      const hit = entries.get(key);
      if (hit !== undefined && request !== undefined) request.responseCache = 'hit';
      return hit;
    },
    sharedStored,
    miss(request, key, document) {
      request.responseCache = 'miss';
      request.toStore = (status, body, contentType, result) => {
        const entry = store(key, document, request, status, body, contentType, result);
        if (entry !== undefined) request.made = entry;
        return entry?.etag;
      };
    },
    encoded(hit, coding, make) {
      const etag = encodedEtag(hit.etag, coding);
      const kept = hit.encodings?.get(coding);
      if (kept !== undefined) return { body: kept, etag };
      const body = make(hit.body);
      keep(hit, coding, body);
      return { body, etag };
    },
    async purge(tags, everywhere) {
      let dropped = 0;
      for (const key of index.keysOf(tags)) if (entries.delete(key)) dropped += 1;
      if (!everywhere || shared === undefined) return dropped;
      const there = await droppedAt(shared.drop(tags));
      if (!there.complete) throw new DropIncomplete(dropped + there.count);
      return dropped + there.count;
    },
  };

  // Private: a new form kept with `hit`, set again as a copy, since lru-cache sizes an entry on `set`.
  function keep(hit: StoredResponse, coding: string, encoded: Uint8Array): void {
    const key = keys.get(hit);
    const current = key === undefined ? undefined : entries.peek(key);
    const ttl = hit.expiresAt - clock.monotonic();
    if (key === undefined || current === undefined || current.body !== hit.body || ttl <= 0) return;
    const encodings = (current.encodings ??= new Map());
    encodings.set(coding, encoded);
    const copy = { ...current };
    if (entrySize(copy, key) > maxEntryBytes) return void encodings.delete(coding);
    entries.set(key, copy, { ttl });
    keys.set(copy, key);
    fit();
  }

  // Private: a storable answer kept until its data stops being fresh; declined, its document learns it.
  function store(
    key: string, document: DocumentNode, request: GatewayRequest, status: number, body: ArrayBuffer | Uint8Array, contentType: string,
    result: ResultErrors | undefined,
  ): StoredResponse | undefined {
    const storable = status === 200 ? request.storable(result) : undefined;
    const storedAt = storable === undefined ? undefined : clock.monotonic();
    const ttl = storable === undefined || storedAt === undefined ? 0 : Math.floor(storable.until - storedAt);
    documents.offered(document, ttl > 0);
    if (storable === undefined || storedAt === undefined || ttl <= 0) return undefined;
    // A view into a larger buffer (Node's pool for small strings) would keep all of it alive.
    const bytes = !(body instanceof Uint8Array) ? new Uint8Array(body) : body.byteLength === body.buffer.byteLength ? body : new Uint8Array(body);
    const etag = answerEtag(bytes);
    const tags = request.tags();
    const entry = { body: bytes, contentType, etag, storedAt, expiresAt: storable.until, tags };
    put(key, entry, ttl);
    // Shared exactly when kept here: an answer over the entry cap is neither.
    if (shared !== undefined && entrySize(entry, key) <= maxEntryBytes) shared.write(key, { body: bytes, contentType, etag, ageMs: 0, ttlMs: ttl, tags });
    return entry;
  }
}
