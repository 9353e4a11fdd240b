/**
 * Issued tokens with their expiry, and the OAuth 2.0 client_credentials endpoint that fills it:
 * the description leaves it open, so it follows RFC 6749 §4.4 (or `behaviour.tokenStyle`).
 */
import { randomBytes } from 'node:crypto';
import { errorEnvelope, jsonAnswer, successEnvelope, type Answer } from './reply.js';
import type { Behaviour } from './behaviour.js';

/** What a presented token is worth right now. */
export type TokenState = 'valid' | 'expired' | 'unknown';

/** Issued tokens and their expiry. Time comes from `now` (ms since the epoch). */
export interface TokenStore {
  /** A new random token valid for the current lifetime. */
  issue(): { token: string; lifetimeS: number };
  check(token: string): TokenState;
  /** Lifetime, in seconds, of tokens issued from now on. */
  setLifetime(seconds: number): void;
  /** Every token issued so far is expired from now on. */
  expireAll(): void;
  /** Every token issued, oldest first. */
  issued(): string[];
}

/** A token store whose tokens live `lifetimeS` seconds. */
export function createTokenStore(lifetimeS: number, now: () => number): TokenStore {
  const expiresAt = new Map<string, number>();
  let lifetime = checkLifetime(lifetimeS);
  return {
    issue() {
      // 32 random bytes: unguessable, and URL-safe so it fits a header without escaping.
      const token = randomBytes(32).toString('base64url');
      expiresAt.set(token, now() + lifetime * 1000);
      return { token, lifetimeS: lifetime };
    },
    check(token) {
      const at = expiresAt.get(token);
      if (at === undefined) return 'unknown';
      return now() < at ? 'valid' : 'expired';
    },
    setLifetime(seconds) {
      lifetime = checkLifetime(seconds);
    },
    expireAll() {
      for (const token of expiresAt.keys()) expiresAt.set(token, -Infinity);
    },
    issued: () => [...expiresAt.keys()],
  };
}

// Private: a lifetime is a finite number of seconds, 0 or more.
function checkLifetime(seconds: number): number {
  if (!Number.isFinite(seconds) || seconds < 0) {
    throw new RangeError(`token lifetime must be a number of seconds >= 0, but got: ${seconds}`);
  }
  return seconds;
}

/** A token request as the server read it. */
export interface TokenRequest {
  contentType: string | undefined;
  authorization: string | undefined;
  body: string;
}

/** What the token endpoint checks against. */
export interface TokenEndpointContext {
  clientId: string;
  clientSecret: string;
  behaviour: Behaviour;
  store: TokenStore;
  nowMs: number;
}

/** Answer a `POST /oauth/token` request. */
export function answerTokenRequest(request: TokenRequest, ctx: TokenEndpointContext): Answer {
  const envelope = ctx.behaviour.tokenStyle === 'envelope';
  if (!(request.contentType ?? '').toLowerCase().startsWith('application/x-www-form-urlencoded')) {
    return tokenError(ctx, 400, 'invalid_request', 'body must be application/x-www-form-urlencoded');
  }
  const form = new URLSearchParams(request.body);
  const client = clientCredentials(request.authorization, form);
  if (!client || client.id !== ctx.clientId || client.secret !== ctx.clientSecret) {
    const challenge = { 'www-authenticate': 'Basic realm="mock-upstream"' };
    return tokenError(ctx, 401, 'invalid_client', 'client authentication failed', challenge);
  }
  const grantType = form.get('grant_type');
  if (grantType === null) return tokenError(ctx, 400, 'invalid_request', 'grant_type is required');
  if (grantType !== 'client_credentials') {
    return tokenError(ctx, 400, 'unsupported_grant_type', `grant_type not supported: ${grantType}`);
  }
  const { token, lifetimeS } = ctx.store.issue();
  const scope = form.get('scope');
  const result = {
    access_token: token,
    token_type: 'Bearer',
    ...(ctx.behaviour.tokenExpiresIn ? { expires_in: lifetimeS } : {}),
    ...(scope ? { scope } : {}),
  };
  // RFC 6749 §5.1: token answers must not be cached.
  const noStore = { 'cache-control': 'no-store', pragma: 'no-cache' };
  const answer = envelope ? successEnvelope(result, ctx.nowMs) : jsonAnswer(200, result);
  return { ...answer, headers: { ...answer.headers, ...noStore } };
}

// Private: an RFC 6749 §5.2 error, or an error envelope with the same HTTP status.
function tokenError(
  ctx: TokenEndpointContext, status: number, error: string, description: string,
  headers: Record<string, string> = {},
): Answer {
  const answer = ctx.behaviour.tokenStyle === 'envelope'
    ? errorEnvelope(status, status, description, ctx.nowMs)
    : jsonAnswer(status, { error, error_description: description });
  return { ...answer, headers: { ...answer.headers, ...headers } };
}

// Private: client id and secret from HTTP Basic (preferred) or the form body.
function clientCredentials(authorization: string | undefined, form: URLSearchParams): { id: string; secret: string } | undefined {
  const basic = /^Basic\s+(\S+)\s*$/i.exec(authorization ?? '');
  if (basic?.[1]) return decodeBasic(basic[1]);
  const id = form.get('client_id');
  const secret = form.get('client_secret');
  return id !== null && secret !== null ? { id, secret } : undefined;
}

// Private: RFC 6749 §2.3.1 form-urlencodes id and secret before base64, so decode both steps.
function decodeBasic(encoded: string): { id: string; secret: string } | undefined {
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  try {
    const unform = (s: string): string => decodeURIComponent(s.replace(/\+/g, ' '));
    return { id: unform(decoded.slice(0, colon)), secret: unform(decoded.slice(colon + 1)) };
  } catch {
    return undefined;
  }
}
