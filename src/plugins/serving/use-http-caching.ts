/**
 * What HTTP caches downstream (browsers, CDNs, a caching proxy) are told about each answer on the
 * GraphQL endpoint (README "HTTP caching and CDNs"). One rule, in one place:
 *
 * - A GET answered `200` (or `304` from the response cache) with plain JSON, made of one
 *   operation with no error, nothing stale and data whose freshness is known, is cacheable:
 *   `Cache-Control: public, max-age=N` (`private` when `GATEWAY_API_KEYS` is set, so a shared
 *   cache never serves it to a client without a key), where N is the whole seconds until the first
 *   of its data stops being fresh (the data cache reports each lookup's expiry on the request
 *   record, whether or not the response cache is on). Served from the response cache it also
 *   carries `Age`, the whole seconds since it was stored. N is the time left *now*, not the
 *   stored answer's lifetime: a cache that honours `Age` keeps it N − Age seconds, shorter than it
 *   could, never longer; one that ignores `Age` (nginx does) keeps it exactly N.
 * - `Vary` names what else changes the answer: `Accept` (it chooses the media type) and the API
 *   key headers when keys are set, added to what is there (edge/headers/vary.ts); compression
 *   adds `Accept-Encoding`, and CORS, last, `Origin` (edge/headers/cors.ts).
 * - Everything else gets `Cache-Control: no-store`: POSTs, answers with errors or stale data,
 *   answers made of the time now (`isOpen` without `at`) or stating their data's age (the catalog
 *   index's `dataAge`, true when made, false when replayed: the request scope marks both as
 *   already expired), answers that read no cached data (introspection: no freshness to go by),
 *   less than a second of freshness left, batches, ambiguous requests, incremental responses
 *   (`multipart/mixed`, `text/event-stream`), and refusals before GraphQL runs (401, 413, 415,
 *   429…).
 * - An answer in parts (`multipart/mixed`, `text/event-stream`: subscriptions, `@defer`) also
 *   gets `X-Accel-Buffering: no`: nginx (deploy/nginx.conf) then sends each part on as it comes
 *   and keeps the client's pace, instead of reading ahead into its buffers; whole answers stay
 *   buffered there, which its cache needs.
 *
 * - Any other answer the gateway writes with an error status and no `Cache-Control` of its own
 *   (yoga's bare 404 off every route) gets `no-store`: a cache would keep a 404 or 405 otherwise.
 *
 * Whether an answer is whole is the request object's to say (request/request.ts), from the result
 * this plugin saw: nothing else has to have noted its errors.
 *
 * `ETag` and the `304` answer to `If-None-Match` stay the response cache's (use-response-cache.ts).
 *
 * Every answer a shared cache may keep (made or stored) also names the data it was built from, in
 * `Surrogate-Key` and `Cache-Tag` (request/tags.ts, README "Purging"); a `no-store` one does not:
 * no cache could purge it (the lean path, POSTs only, sends none either).
 */
import type { Plugin } from 'graphql-yoga';
import type { Clock } from '../../base/clock.js';
import { currentRequest } from '../../request/record.js';
import type { GatewayRequest, ResultErrors } from '../../request/request.js';
import { tagHeaders } from '../../request/tags.js';
import { varyWith } from '../../edge/headers/vary.js';
import { ROUTES } from '../../edge/routes.js';
import { ambiguousRequest } from '../../response-cache/key.js';
import { storedAnswerServed } from '../../response-cache/store.js';

export interface HttpCachingOptions {
  /** The shared data cache's clock (the record's expiry times and the response cache's come from it). */
  clock: Clock;
  /** Whether clients authenticate with API keys (`GATEWAY_API_KEYS`): answers are then `private`. */
  apiKeys: boolean;
}

/** Media types of a whole (not incremental) JSON answer. */
const PLAIN_JSON = new Set(['application/json', 'application/graphql-response+json']);
/** Media types of an answer in parts. */
const IN_PARTS = new Set(['multipart/mixed', 'text/event-stream']);

export function useHttpCaching({ clock, apiKeys }: HttpCachingOptions): Plugin {
  const vary = ['Accept', ...(apiKeys ? ['Authorization', 'x-api-key'] : [])];
  const scope = apiKeys ? 'private' : 'public';
  // The result each request got (a whole one), for its errors.
  const results = new WeakMap<Request, ResultErrors>();
  const graphqlEndpoint = ROUTES.graphql;
  return {
    onResultProcess({ request, result }) {
      if (!Array.isArray(result) && !(Symbol.asyncIterator in result)) results.set(request, result);
    },
    onResponse({ request, response }) {
      const url = new URL(request.url, 'http://localhost');
      // The GraphiQL page shares the path but is no GraphQL answer: it sets its own (graphiql-page.ts).
      if (url.pathname !== graphqlEndpoint || request.method === 'OPTIONS' || currentRequest()?.graphql === false) {
        if (response.status >= 400 && !response.headers.has('cache-control')) response.headers.set('cache-control', 'no-store');
        return;
      }
      if (IN_PARTS.has(mediaType(response))) response.headers.set('x-accel-buffering', 'no');
      const freshness = cacheableFor(request, url, response);
      if (freshness === undefined) return replaceHeader(response, 'cache-control', 'no-store');
      setTags(request, response);
      replaceHeader(response, 'cache-control', `${scope}, max-age=${freshness.maxAgeS}`);
      if (freshness.ageS !== undefined) replaceHeader(response, 'age', String(freshness.ageS));
      replaceHeader(response, 'vary', varyWith(response.headers.get('vary'), vary));
    },
  };

  // Private: whole seconds of freshness left (and the age, when stored), or undefined for no-store.
  function cacheableFor(request: Request, url: URL, response: Response): { maxAgeS: number; ageS?: number } | undefined {
    const record = currentRequest();
    if (request.method !== 'GET' || record === undefined || !complete(record, response, results.get(request))) return undefined;
    if (ambiguousRequest(request, url)) return undefined;
    const now = clock.monotonic();
    const stored = storedAnswerServed(request);
    const expiresAt = stored?.expiresAt ?? record.dataExpiresAt;
    if (!Number.isFinite(expiresAt)) return undefined;
    const maxAgeS = Math.floor((expiresAt - now) / 1000);
    if (maxAgeS < 1) return undefined;
    return stored === undefined ? { maxAgeS } : { maxAgeS, ageS: Math.max(0, Math.floor((now - stored.storedAt) / 1000)) };
  }
}

// Private: the tags of an answer a shared cache may keep: the stored answer's, or those its request collected.
function setTags(request: Request, response: Response): void {
  const headers = tagHeaders(storedAnswerServed(request)?.tags ?? currentRequest()?.tags());
  if (headers === undefined) return;
  replaceHeader(response, 'surrogate-key', headers['surrogate-key']);
  replaceHeader(response, 'cache-tag', headers['cache-tag']);
}

// Private: one operation, answered whole as plain JSON, with no error and nothing stale.
function complete(record: GatewayRequest, response: Response, result: ResultErrors | undefined): boolean {
  const status = response.status === 200 ? PLAIN_JSON.has(mediaType(response)) : response.status === 304;
  return status && record.whole(result);
}

// Private: the answer's media type, lower case, without parameters.
function mediaType(response: Response): string {
  return response.headers.get('content-type')?.split(';', 1)[0]?.trim().toLowerCase() ?? '';
}

// Private: sets a header, replacing any value. @whatwg-node's Headers, built from an object whose
// names are capitalised (yoga's SSE answer sets `Cache-Control: no-cache`), would otherwise keep
// that one beside the new one: delete finds it whatever its case.
function replaceHeader(response: Response, name: string, value: string): void {
  response.headers.delete(name);
  response.headers.set(name, value);
}
