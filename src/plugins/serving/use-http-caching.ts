/**
 * What HTTP caches downstream are told about each answer on the GraphQL endpoint, in one place
 * (README "HTTP caching and CDNs"):
 *
 * - A GET answered whole (`200` plain JSON or `304`), with no error, nothing stale and known
 *   freshness gets `Cache-Control: public, max-age=N` (`private` with API keys), N the whole
 *   seconds of freshness left now, plus `Age` when served stored, `Vary`, and its data's tags
 *   (`Surrogate-Key`, `Cache-Tag`) so that it can be purged.
 * - Everything else gets `no-store`, as does any error status without a `Cache-Control` of its own.
 * - An answer in parts gets `X-Accel-Buffering: no`, so nginx passes each part on as it comes.
 *
 * `ETag` and `304` stay the response cache's (use-response-cache.ts).
 */
import type { Plugin } from 'graphql-yoga';
import type { Clock } from '../../base/clock.js';
import { requestIn, type GatewayRequest } from '../../request/request.js';
import { tagHeaders } from '../../request/tags.js';
import { varyWith } from '../../encoding/vary.js';
import { ROUTES } from '../../admission/routes.js';
import { ambiguousRequest } from '../../response-cache/key.js';

export interface HttpCachingOptions {
  /** The shared data cache's clock, against which expiry times are read. */
  clock: Clock;
  /** Whether clients authenticate with API keys: answers are then `private`. */
  apiKeys: boolean;
}

/** Media types of a whole (not incremental) JSON answer. */
const PLAIN_JSON = new Set(['application/json', 'application/graphql-response+json']);
/** Media types of an answer in parts. */
const IN_PARTS = new Set(['multipart/mixed', 'text/event-stream']);

export function useHttpCaching({ clock, apiKeys }: HttpCachingOptions): Plugin {
  const vary = ['Accept', ...(apiKeys ? ['Authorization', 'x-api-key'] : [])];
  const scope = apiKeys ? 'private' : 'public';
  const graphqlEndpoint = ROUTES.graphql;
  return {
    onResponse({ request, response, serverContext }) {
      const url = new URL(request.url, 'http://localhost');
      const gatewayRequest = requestIn(serverContext);
      // A preflight with CORS off, or a request no GraphQL answered, is told nothing but `no-store` when refused.
      if (url.pathname !== graphqlEndpoint || request.method === 'OPTIONS' || gatewayRequest?.graphql === false) {
        if (response.status >= 400 && !response.headers.has('cache-control')) response.headers.set('cache-control', 'no-store');
        return;
      }
      if (IN_PARTS.has(mediaType(response))) response.headers.set('x-accel-buffering', 'no');
      const freshness = gatewayRequest && cacheableFor(gatewayRequest, request, url, response);
      if (freshness === undefined) return replaceHeader(response, 'cache-control', 'no-store');
      setTags(gatewayRequest!, response);
      replaceHeader(response, 'cache-control', `${scope}, max-age=${freshness.maxAgeS}`);
      if (freshness.ageS !== undefined) replaceHeader(response, 'age', String(freshness.ageS));
      replaceHeader(response, 'vary', varyWith(response.headers.get('vary'), vary));
    },
  };

  // Private: whole seconds of freshness left (and the age, when stored), or undefined for no-store.
  function cacheableFor(gatewayRequest: GatewayRequest, request: Request, url: URL, response: Response): { maxAgeS: number; ageS?: number } | undefined {
    if (request.method !== 'GET' || !complete(gatewayRequest, response)) return undefined;
    if (ambiguousRequest(request, url)) return undefined;
    const now = clock.monotonic();
    const stored = gatewayRequest.served;
    const expiresAt = stored?.expiresAt ?? gatewayRequest.dataExpiresAt;
    if (!Number.isFinite(expiresAt)) return undefined;
    const maxAgeS = Math.floor((expiresAt - now) / 1000);
    if (maxAgeS < 1) return undefined;
    return stored === undefined ? { maxAgeS } : { maxAgeS, ageS: Math.max(0, Math.floor((now - stored.storedAt) / 1000)) };
  }
}

// Private: the tags of an answer a shared cache may keep: the stored answer's, or those its request collected.
function setTags(request: GatewayRequest, response: Response): void {
  const headers = tagHeaders(request.served?.tags ?? request.tags());
  if (headers === undefined) return;
  replaceHeader(response, 'surrogate-key', headers['surrogate-key']);
  replaceHeader(response, 'cache-tag', headers['cache-tag']);
}

// Private: one operation, answered whole as plain JSON, with no error and nothing stale.
function complete(request: GatewayRequest, response: Response): boolean {
  const status = response.status === 200 ? PLAIN_JSON.has(mediaType(response)) : response.status === 304;
  return status && request.whole(request.result);
}

// Private: the answer's media type, lower case, without parameters.
function mediaType(response: Response): string {
  return response.headers.get('content-type')?.split(';', 1)[0]?.trim().toLowerCase() ?? '';
}

// Private: sets a header, replacing any value whatever the case of its name (set alone keeps a capitalised one).
function replaceHeader(response: Response, name: string, value: string): void {
  response.headers.delete(name);
  response.headers.set(name, value);
}
