/**
 * CORS (`CORS_ORIGINS`): the headers an answer carries for a browser on another origin, and its
 * `Vary`, as yoga's own CORS plugin made them (credentials never: no client is authenticated by
 * cookie), but extending `Vary` rather than replacing it. While CORS is on, every answer a cache
 * may keep varies on `Origin`, since the same URL from another origin gets other headers; a
 * `no-store` one only where it echoes the origin.
 */
import { varyWith } from './vary.js';

const EXPOSED_HEADERS = 'x-request-id, retry-after';

export interface Cors {
  /** Whether CORS is on: preflights are answered, and answers get CORS headers. */
  readonly on: boolean;
  /** The CORS headers (none without `Origin`) and `Vary` for an answer with `answer`'s own headers. */
  headersFor(request: { get(name: string): string | null }, answer: { vary: string | null; cacheControl: string | null }): Record<string, string>;
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

function noStore(cacheControl: string | null): boolean {
  return cacheControl !== null && cacheControl.split(',').some((directive) => directive.trim().toLowerCase() === 'no-store');
}
