/**
 * What an operator should check when an exchange with the upstream or its token endpoint fails,
 * in one sentence, from what the failure carries: the socket's error code (ECONNREFUSED,
 * ENOTFOUND, a TLS code), a timeout, an HTML page, or the HTTP status. It names settings and the
 * host, never a URL's credentials, a header or a secret.
 */
import type { UpstreamError } from './errors.js';

/** Where the failed exchange went: the host and the setting that names it. */
export interface ExchangeTarget {
  /** `host[:port]`, e.g. `auth.example.com`. */
  host: string;
  setting: 'OAUTH_TOKEN_URL' | 'UPSTREAM_BASE_URL';
}

const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH$|EPROTO$)/;
const UNRESOLVED = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NONAME']);
const CLOSED = new Set(['ECONNRESET', 'UND_ERR_SOCKET', 'EPIPE', 'UND_ERR_CLOSED']);
const UNREACHABLE = new Set(['EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN']);

/** A body that is an HTML page (a proxy's error page, a login form) rather than JSON. */
export function looksLikeHtml(text: string): boolean {
  return /^\s*</.test(text);
}

/** The socket's error code behind a transport failure (e.g. `ECONNREFUSED`), if it had one. */
export function networkCodeOf(error: UpstreamError): string | undefined {
  const code = (error.cause as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** The message and fields of a failed token request to `host`: what went wrong and what to check. */
export function tokenFailureLog(error: UpstreamError, host: string): { line: string; fields: { host: string; errorCode: string | undefined; check: string | undefined } } {
  const check = whatToCheck(error, { host, setting: 'OAUTH_TOKEN_URL' });
  const line = `token request to ${host} failed: ${failureLabel(error)}${check === undefined ? '' : `; ${check}`}`;
  return { line, fields: { host, errorCode: networkCodeOf(error), check } };
}

/** What went wrong, short: the error code, `timeout`, `HTML answer` or `HTTP <status>`. */
export function failureLabel(error: UpstreamError): string {
  if (error.reason === 'timeout') return 'timeout';
  if (error.html) return `HTML answer (HTTP ${error.status})`;
  return networkCodeOf(error) ?? (error.status === undefined ? error.code : `HTTP ${error.status}`);
}

/** The sentence of what to check; `undefined` when the failure says nothing an operator can act on. */
export function whatToCheck(error: UpstreamError, { host, setting }: ExchangeTarget): string | undefined {
  const code = networkCodeOf(error);
  const hostname = host.replace(/:\d+$/, '');
  if (error.html) return `check that ${setting} is the ${endpointOf(setting)} (a web page, a login page or a proxy's error page answers HTML)`;
  if (error.reason === 'timeout') return `no answer in time: check that ${host} is reachable from here (a firewall that drops packets looks like this), or raise ${setting === 'OAUTH_TOKEN_URL' ? 'TOKEN_TIMEOUT_MS' : 'UPSTREAM_TIMEOUT_MS'}`;
  if (code === 'ECONNREFUSED') return `nothing accepts connections at ${host}: check the host and port in ${setting} and that the service runs`;
  if (code !== undefined && UNRESOLVED.has(code)) return `${hostname} does not resolve: check the host name in ${setting} and this machine's DNS`;
  if (code !== undefined && TLS_CODE.test(code)) return `TLS with ${host} failed: check its certificate (a private CA goes in NODE_EXTRA_CA_CERTS) and that ${setting} uses https on an HTTPS port`;
  if (code !== undefined && CLOSED.has(code)) return `${host} closed the connection without an answer: check that ${setting}'s scheme (http or https) matches its port, and any proxy on the way`;
  if (code !== undefined && UNREACHABLE.has(code)) return `no route to ${host}: check the network, a firewall or a proxy on the way`;
  if (error.code === 'UPSTREAM_AUTH_FAILED') return 'the client credentials were refused: check OAUTH_CLIENT_ID, OAUTH_CLIENT_SECRET and OAUTH_CLIENT_AUTH (basic or post)';
  if (error.status === 404 || error.status === 405) return `check the path in ${setting}`;
  if (error.status !== undefined && error.status >= 500) return `${host} itself is failing; the gateway backs off and tries again`;
  return undefined;
}

// Private: what the setting should point to.
function endpointOf(setting: ExchangeTarget['setting']): string {
  return setting === 'OAUTH_TOKEN_URL' ? 'token endpoint itself' : "API's base address";
}
