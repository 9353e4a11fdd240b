import { parseEnvelope, parseJson } from '../envelope.js';
import { UpstreamError, redactSecrets } from '../errors.js';
import { looksLikeHtml } from '../explain.js';
import type { TransportResponse } from '../http/transport.js';

/** What the token endpoint granted. */
export interface TokenAnswer {
  accessToken: string;
  /** Lifetime in seconds; `undefined` when the answer did not say. */
  expiresInS: number | undefined;
}

const OAUTH_ERROR_CODE = /^[a-z_]{1,64}$/;
const NUMERIC = /^\d+(\.\d+)?$/;

/**
 * Reads the token endpoint's answer, RFC 6749 JSON or the same in the upstream envelope. Refused
 * credentials (401/403, a 400 OAuth `error`, an error envelope below 500) are
 * `UPSTREAM_AUTH_FAILED`; anything else that is not a token is a transient `UPSTREAM_UNAVAILABLE`.
 * The endpoint's `msg` is quoted with every one of `secretForms` redacted.
 */
export function parseTokenAnswer(response: TransportResponse, path: string, secretForms: readonly string[]): TokenAnswer {
  const { status } = response;
  const json = parseJson(response.text);
  const envelope = isRecord(json) && !('access_token' in json) ? parseEnvelope(json) : undefined;
  const grant = envelope === undefined ? json : envelope.code === 0 ? envelope.result : undefined;

  if (isRecord(grant) && (envelope !== undefined || isSuccess(status))) return readGrant(grant, path, status);
  if (status >= 500) {
    throw new UpstreamError('UPSTREAM_UNAVAILABLE', `token endpoint answered HTTP ${status}`, { path, status, transient: true });
  }
  if (envelope !== undefined && envelope.code !== 0) {
    const upstreamMsg = redactSecrets(envelope.msg, secretForms);
    throw new UpstreamError('UPSTREAM_AUTH_FAILED',
      `token endpoint refused the client credentials (code ${envelope.code}: ${upstreamMsg})`,
      { path, status, upstreamCode: envelope.code, upstreamMsg });
  }
  const oauthError = isRecord(json) && typeof json.error === 'string' && OAUTH_ERROR_CODE.test(json.error) ? json.error : undefined;
  if (status === 401 || status === 403 || (status === 400 && oauthError !== undefined)) {
    throw new UpstreamError('UPSTREAM_AUTH_FAILED',
      `token endpoint refused the client credentials (HTTP ${status}${oauthError === undefined ? '' : `, ${oauthError}`})`,
      { path, status });
  }
  const html = json === undefined && looksLikeHtml(response.text);
  const what = html ? 'an HTML page, not JSON' : json === undefined ? 'a body that is not JSON' : 'no access token';
  // A garbled 2xx may pass; a 3xx or 4xx (wrong URL, proxy refusal) will not.
  throw new UpstreamError('UPSTREAM_UNAVAILABLE', `token endpoint answered HTTP ${status} with ${what}`,
    { path, status, transient: isSuccess(status), html });
}

// Private: the token and its lifetime out of an RFC 6749 answer object.
function readGrant(grant: Record<string, unknown>, path: string, status: number): TokenAnswer {
  const accessToken = grant.access_token;
  if (typeof accessToken !== 'string' || accessToken === '') {
    throw new UpstreamError('UPSTREAM_UNAVAILABLE', `token endpoint answered HTTP ${status} with no access token`, { path, status, transient: true });
  }
  return { accessToken, expiresInS: readExpiresIn(grant.expires_in) };
}

// Private: a number or numeric string of seconds; anything else counts as absent.
function readExpiresIn(raw: unknown): number | undefined {
  if (typeof raw === 'number' && Number.isFinite(raw) && raw >= 0) return raw;
  if (typeof raw === 'string' && NUMERIC.test(raw.trim())) return Number(raw.trim());
  return undefined;
}

function isSuccess(status: number): boolean {
  return status >= 200 && status < 300;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
