/**
 * Optional client authentication (`GATEWAY_API_KEYS`). With no keys the gateway is open. With
 * keys, a request carries one as `Authorization: Bearer <key>` or `x-api-key: <key>`, or gets a
 * 401 with `WWW-Authenticate: Bearer` and a GraphQL-shaped `UNAUTHENTICATED` error.
 *
 * Open whatever the keys: `/healthz` and `/readyz` (probes carry no credentials), CORS
 * preflights (yoga answers them before the plugins run), and what `isOpen` says: the gateway
 * passes the GraphiQL page's test when the page is on (a browser's address bar sends no key; the
 * page's queries need one, set in GraphiQL's headers tab). An open request with a valid key is
 * still known by it (its rate-limit budget is the key's). `/metrics` needs a key when keys are
 * set (Prometheus sends one with `authorization: { credentials: … }`): it reveals operation
 * names and traffic.
 *
 * Keys are compared in constant time: each configured key and the presented one are hashed
 * (SHA-256, so lengths never differ) and every configured digest is compared with
 * `timingSafeEqual`, without stopping at a match. The key itself is never stored on the request
 * or logged; an accepted client is known by its key's fingerprint (`key:<12 hex digits>`).
 * The client's `Authorization` header goes nowhere: the upstream client builds its own headers.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Plugin } from 'graphql-yoga';
import { currentRequest } from '../../request/record.js';
import { errorResponse } from '../serving/error-response.js';

/** Paths answered without a key. */
const OPEN_PATHS = new Set(['/healthz', '/readyz']);

const BEARER = /^Bearer\s+(\S+)\s*$/i;

export interface ApiKeyOptions {
  /** Requests answered without a key (besides the open paths). Default: none. */
  isOpen?: (request: Request, url: URL) => boolean;
}

export function useApiKeys(keys: readonly string[], { isOpen = () => false }: ApiKeyOptions = {}): Plugin {
  if (keys.length === 0) return {};
  const clientOf = createApiKeyMatcher(keys);
  return {
    onRequest({ request, url, endResponse, fetchAPI }) {
      if (OPEN_PATHS.has(url.pathname)) return;
      const presented = presentedKey(request.headers);
      const client = clientOf(request.headers);
      const record = currentRequest();
      if (client !== undefined) {
        if (record !== undefined) record.client = client;
        return;
      }
      if (isOpen(request, url)) return;
      if (record !== undefined) {
        record.rejectedAs = 'unauthenticated';
        record.errorCodes.add('UNAUTHENTICATED');
      }
      const challenge = presented === undefined ? 'Bearer realm="vending-graph"' : 'Bearer realm="vending-graph", error="invalid_token"';
      const message = presented === undefined ? 'An API key is required' : 'The API key is not valid';
      endResponse(errorResponse(fetchAPI, 401, { message, code: 'UNAUTHENTICATED' }, { 'www-authenticate': challenge }));
    },
  };
}

// Private: `x-api-key`, else the token of `Authorization: Bearer`; other schemes count as none.
/**
 * The client a request's key names (`key:<fingerprint>`), or undefined when it presents no valid
 * key. Shared by the plugin and the lean path.
 */
export function createApiKeyMatcher(keys: readonly string[]): (headers: HeaderReader) => string | undefined {
  const digests = keys.map(digest);
  return (headers) => {
    const presented = presentedKey(headers);
    const match = presented === undefined ? undefined : matchDigest(digests, digest(presented));
    return match === undefined ? undefined : `key:${match.toString('hex').slice(0, 12)}`;
  };
}

/** What the key check reads of a request: Fetch's `Headers`, or the lean path's own reader. */
export interface HeaderReader {
  get(name: string): string | null;
}

function presentedKey(headers: HeaderReader): string | undefined {
  const apiKey = headers.get('x-api-key')?.trim();
  if (apiKey) return apiKey;
  return BEARER.exec(headers.get('authorization') ?? '')?.[1];
}

function digest(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}

// Private: the configured digest equal to `presented`, comparing with every one of them.
function matchDigest(digests: readonly Buffer[], presented: Buffer): Buffer | undefined {
  let match: Buffer | undefined;
  for (const candidate of digests) {
    if (timingSafeEqual(candidate, presented)) match = candidate;
  }
  return match;
}
