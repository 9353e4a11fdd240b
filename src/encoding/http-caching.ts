/**
 * What HTTP caches downstream are told about each GraphQL answer, decided once for every door
 * (docs/http-caching.md "HTTP caching and CDNs"):
 *
 * - A GET answered whole (`200` plain JSON or `304`), with no error, nothing stale and known
 *   freshness gets `Cache-Control: public, max-age=N` (`private` with API keys), N the whole
 *   seconds of freshness left now, plus `Age` when served stored, `Vary`, and its data's tags
 *   (`Surrogate-Key`, `Cache-Tag`) so that it can be purged.
 * - Everything else gets `no-store`.
 * - An answer in parts gets `X-Accel-Buffering: no`, so nginx passes each part on as it comes.
 */
import type { Clock } from '../base/clock.js';
import type { GatewayRequest } from '../request/request.js';
import { tagHeaders } from '../request/tags.js';
import { varyWith } from './vary.js';

export interface HttpCachingOptions {
  /** The shared data cache's clock, against which expiry times are read. */
  clock: Clock;
  /** Whether clients authenticate with API keys: answers are then `private`. */
  apiKeys: boolean;
}

/** What the decision reads of an answer and its request. */
export interface Answered {
  method: string;
  status: number;
  contentType: string | null | undefined;
  /** The answer's `Vary` so far. */
  vary: string | null | undefined;
}

/** The headers to set (replacing any of the same name) on `answered`, the answer to `request`. */
export type CachingHeaders = (request: GatewayRequest, answered: Answered) => Readonly<Record<string, string>>;

/** Media types of a whole (not incremental) JSON answer. */
const PLAIN_JSON = new Set(['application/json', 'application/graphql-response+json']);
/** Media types of an answer in parts. */
const IN_PARTS = new Set(['multipart/mixed', 'text/event-stream']);
/** What most answers get, made once (callers copy it). */
const NO_STORE: Readonly<Record<string, string>> = Object.freeze({ 'cache-control': 'no-store' });
const PARTS_NO_STORE: Readonly<Record<string, string>> = Object.freeze({ 'x-accel-buffering': 'no', 'cache-control': 'no-store' });

export function createHttpCaching({ clock, apiKeys }: HttpCachingOptions): CachingHeaders {
  const vary = ['Accept', ...(apiKeys ? ['Authorization', 'x-api-key'] : [])];
  const scope = apiKeys ? 'private' : 'public';
  return (request, answered) => {
    const type = mediaType(answered.contentType);
    const parts = IN_PARTS.has(type);
    const freshness = freshnessOf(request, answered, type);
    if (freshness === undefined) return parts ? PARTS_NO_STORE : NO_STORE;
    const headers: Record<string, string> = { ...tagHeaders(request.served?.tags ?? request.tags()) };
    headers['cache-control'] = `${scope}, max-age=${freshness.maxAgeS}`;
    if (freshness.ageS !== undefined) headers.age = String(freshness.ageS);
    headers.vary = varyWith(answered.vary ?? null, vary);
    return headers;
  };

  // Private: whole seconds of freshness left (and the age, when stored), or undefined for no-store.
  function freshnessOf(request: GatewayRequest, answered: Answered, type: string): { maxAgeS: number; ageS?: number } | undefined {
    // A request two readers could read otherwise (response-cache/key.ts) is never cached, here as in the response cache.
    if (answered.method !== 'GET' || request.uncacheable) return undefined;
    const whole = answered.status === 200 ? PLAIN_JSON.has(type) : answered.status === 304;
    if (!whole || !request.whole(request.result)) return undefined;
    const now = clock.monotonic();
    const stored = request.served;
    const expiresAt = stored?.expiresAt ?? request.dataExpiresAt;
    if (!Number.isFinite(expiresAt)) return undefined;
    const maxAgeS = Math.floor((expiresAt - now) / 1000);
    if (maxAgeS < 1) return undefined;
    return stored === undefined ? { maxAgeS } : { maxAgeS, ageS: Math.max(0, Math.floor((now - stored.storedAt) / 1000)) };
  }
}

// Private: a media type, lower case, without parameters.
function mediaType(contentType: string | null | undefined): string {
  return contentType?.split(';', 1)[0]?.trim().toLowerCase() ?? '';
}
