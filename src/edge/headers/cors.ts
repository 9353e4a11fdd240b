/**
 * CORS (`CORS_ORIGINS`, README "Security"): the headers an answer carries for a browser on
 * another origin, and what its `Vary` must say about them. yoga's path writes them
 * (plugins/protection/use-cors.ts); the lean path hands every request with `Origin` to it.
 *
 * The headers are those yoga's own CORS plugin (@whatwg-node/server's `useCORS`) made from the
 * options the gateway gave it: `*` echoes any origin; a list echoes a listed origin and answers
 * `null` to another, a list of one always names its origin; the requested method and headers of
 * a preflight are allowed as asked; `x-request-id` and `retry-after` are exposed; credentials
 * never (the gateway authenticates no client by cookie). Made here because that plugin set
 * `Vary: Origin` outright, over the `Accept` and `Accept-Encoding` already named (edge/headers/vary.ts).
 *
 * `Vary` and `Cache-Control` decided together: while CORS is on, every answer a cache may keep
 * (anything but `no-store`) varies on `Origin`, whether or not this request sent one, because the
 * same URL asked with another `Origin`, or none, gets other CORS headers. A `no-store` answer
 * varies on it only where its headers echo the request's origin, as yoga's did.
 */
import { varyWith } from './vary.js';

/** Response headers a browser lets a script on another origin read, besides the safelisted ones. */
const EXPOSED_HEADERS = 'x-request-id, retry-after';

export interface Cors {
  /** Whether CORS is on (`CORS_ORIGINS` not `none`): preflights are answered, and answers get CORS headers. */
  readonly on: boolean;
  /**
   * The headers to set on an answer to a request with `request` headers: its CORS headers (none
   * without `Origin`) and its `Vary`, built from `answer`'s own (`vary`, `cache-control`).
   */
  headersFor(request: Headers, answer: { vary: string | null; cacheControl: string | null }): Record<string, string>;
}

/** CORS for `origins` (`CORS_ORIGINS`): `['*']` any origin, a list only those, `[]` off. */
export function createCors(origins: readonly string[]): Cors {
  const any = origins.includes('*');
  const listed = new Set(origins);
  return {
    on: origins.length > 0,
    headersFor(request, answer) {
      if (origins.length === 0) return {};
      const headers: Record<string, string> = {};
      const vary: string[] = [];
      const origin = request.get('origin');
      if (origin !== null) {
        if (any || (origins.length > 1 && listed.has(origin))) {
          headers['access-control-allow-origin'] = origin;
          vary.push('Origin');
        } else {
          headers['access-control-allow-origin'] = origins.length === 1 ? origins[0]! : 'null';
        }
        const method = request.get('access-control-request-method');
        if (method) headers['access-control-allow-methods'] = method;
        const asked = request.get('access-control-request-headers');
        if (asked) {
          headers['access-control-allow-headers'] = asked;
          vary.push('Access-Control-Request-Headers');
        }
        headers['access-control-expose-headers'] = EXPOSED_HEADERS;
      }
      if (!noStore(answer.cacheControl)) vary.push('Origin');
      if (vary.length > 0) headers.vary = varyWith(answer.vary, vary);
      return headers;
    },
  };
}

// Private: whether `Cache-Control` forbids every cache to keep the answer.
function noStore(cacheControl: string | null): boolean {
  return cacheControl !== null && cacheControl.split(',').some((directive) => directive.trim().toLowerCase() === 'no-store');
}
