/**
 * The API-key check (`GATEWAY_API_KEYS`): `x-api-key: <key>` or `Authorization: Bearer <key>`.
 * Keys are compared in constant time (SHA-256 digests, each compared, no early exit) and never
 * kept; a client is known by its key's fingerprint (`key:<12 hex digits>`). A refusal is 401 with
 * `WWW-Authenticate: Bearer`.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { refusal, type Admitted, type Refusal } from './refusal.js';

/** What the key check reads of a request: Fetch's `Headers`, or a door's own reader. */
export interface HeaderReader {
  get(name: string): string | null;
}

/** Node's headers of `req` as Fetch's `Headers` reads them (repeated values joined), for a door outside yoga. */
export function nodeHeaders(req: IncomingMessage): HeaderReader {
  return {
    get(name) {
      const value = req.headers[name];
      return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
    },
  };
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** The client a request's key names (`key:<fingerprint>`), or undefined when it presents no valid key. */
export function createApiKeyMatcher(keys: readonly string[]): (headers: HeaderReader) => string | undefined {
  const digests = keys.map(digest);
  return (headers) => {
    const presented = presentedKey(headers);
    const match = presented === undefined ? undefined : matchDigest(digests, digest(presented));
    return match === undefined ? undefined : `key:${match.toString('hex').slice(0, 12)}`;
  };
}

/** The key check of a request: its client, or its refusal; without keys, everyone as nobody. */
export function createKeyCheck(keys: readonly string[]): (headers: HeaderReader) => Admitted | Refusal {
  const nobody: Admitted = Object.freeze({ client: undefined });
  if (keys.length === 0) return () => nobody;
  const clientOf = createApiKeyMatcher(keys);
  return (headers) => {
    const client = clientOf(headers);
    return client !== undefined ? { client } : keyRefusal(presentsKey(headers));
  };
}

/** The refusal of a request without a valid key: `presented` says whether it sent a wrong one. */
export function keyRefusal(presented: boolean): Refusal {
  const challenge = presented ? 'Bearer realm="vending-graph", error="invalid_token"' : 'Bearer realm="vending-graph"';
  return refusal('UNAUTHENTICATED', presented ? 'The API key is not valid' : undefined, { 'www-authenticate': challenge });
}

/** Whether a request presents a key at all (valid or not). */
export function presentsKey(headers: HeaderReader): boolean {
  return presentedKey(headers) !== undefined;
}

// Private: `x-api-key`, else the token of `Authorization: Bearer`.
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
