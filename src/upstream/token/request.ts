/**
 * The body and headers of a client_credentials token request (RFC 6749 §4.4), for the token
 * manager. The secret goes where `clientAuth` says, and nowhere else.
 */
/** The client's credentials, as the token manager is given them. */
export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
  /** Sent when set. */
  scope?: string;
  /** Where the secret goes: HTTP Basic, or the form body. */
  clientAuth: 'basic' | 'post';
}

export function tokenRequestHeaders(options: ClientCredentials): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/x-www-form-urlencoded',
    accept: 'application/json',
  };
  if (options.clientAuth === 'basic') {
    const pair = `${formEncode(options.clientId)}:${formEncode(options.clientSecret)}`;
    headers.authorization = `Basic ${Buffer.from(pair, 'utf8').toString('base64')}`;
  }
  return headers;
}

export function tokenRequestBody(options: ClientCredentials): string {
  const form = new URLSearchParams({ grant_type: 'client_credentials' });
  if (options.scope !== undefined) form.set('scope', options.scope);
  if (options.clientAuth === 'post') {
    form.set('client_id', options.clientId);
    form.set('client_secret', options.clientSecret);
  }
  return form.toString();
}

/**
 * Every form the client secret travels in (plain, form- and URL-encoded, JSON-escaped, the Basic
 * base64 without padding), longest first so none is left half redacted. Empty when the secret is.
 */
export function credentialForms(options: Pick<ClientCredentials, 'clientId' | 'clientSecret'>): string[] {
  const secret = options.clientSecret;
  if (secret === '') return [];
  const base64 = (pair: string) => Buffer.from(pair, 'utf8').toString('base64').replace(/=+$/, '');
  const forms = new Set([
    secret,
    formEncode(secret),
    encodeURIComponent(secret),
    JSON.stringify(secret).slice(1, -1),
    base64(`${formEncode(options.clientId)}:${formEncode(secret)}`),
    base64(`${options.clientId}:${secret}`),
  ]);
  return [...forms].sort((a, b) => b.length - a.length);
}

// Private: RFC 6749 §2.3.1 form-encodes id and secret before base64, as URLSearchParams does.
function formEncode(value: string): string {
  return new URLSearchParams([['', value]]).toString().slice(1);
}
