/**
 * A deliberately naive client for the mock's own tests: plain `fetch`, no retries, no parsing
 * beyond JSON, so each test sees exactly what went over the wire.
 */
import { afterEach, beforeEach } from 'vitest';
import { createMockUpstream, type MockUpstream, type MockUpstreamOptions } from '../../../src/mock-upstream/index.js';

/** The success or error envelope, as received. */
export interface Envelope<T = unknown> {
  code: number;
  msg: string;
  message?: string;
  type?: string;
  timestamp: number;
  result?: T;
}

/** A list operation's result. */
export interface Page<T = Record<string, unknown>> {
  items: T[];
  total: number;
}

/** A record as received, fields unchecked. */
export type Row = Record<string, unknown>;

/** An answer read whole. */
export interface Received {
  status: number;
  headers: Headers;
  text: string;
  json<T = Envelope>(): T;
}

/** A fresh mock per test, closed afterwards; read it through the returned getter. */
export function useMock(options: MockUpstreamOptions = {}): () => MockUpstream {
  let mock: MockUpstream | undefined;
  beforeEach(async () => {
    mock = await createMockUpstream(options);
  });
  afterEach(async () => {
    await mock?.close();
    mock = undefined;
  });
  return () => {
    if (!mock) throw new Error('useMock: the mock is only available inside a test');
    return mock;
  };
}

// Private: read a response whole.
async function receive(response: Response): Promise<Received> {
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: <T>() => JSON.parse(text) as T };
}

/** POST a form to the token endpoint, with optional headers. */
export async function postToken(mock: MockUpstream, form: Record<string, string>, headers: Record<string, string> = {}): Promise<Received> {
  return receive(await fetch(mock.tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form).toString(),
  }));
}

/** `Basic` credentials as RFC 6749 §2.3.1 builds them. */
export function basicAuth(id: string, secret: string): string {
  const formEncode = (s: string): string => encodeURIComponent(s).replace(/%20/g, '+');
  return `Basic ${Buffer.from(`${formEncode(id)}:${formEncode(secret)}`).toString('base64')}`;
}

/** A valid access token, obtained with HTTP Basic client authentication. */
export async function fetchToken(mock: MockUpstream): Promise<string> {
  const answer = await postToken(mock, { grant_type: 'client_credentials' }, {
    authorization: basicAuth(mock.clientId, mock.clientSecret),
  });
  if (answer.status !== 200) throw new Error(`token request failed: ${answer.status} ${answer.text}`);
  return answer.json<{ access_token: string }>().access_token;
}

/** Options of `api()`. */
export interface ApiOptions {
  /** Bearer token; `null` sends no Authorization header. Default: a fresh token. */
  token?: string | null;
  query?: Record<string, string | number>;
  method?: string;
  signal?: AbortSignal;
}

/** The URL of an API path with a query. */
export function apiUrl(mock: MockUpstream, path: string, query: Record<string, string | number> = {}): string {
  const url = new URL(path, mock.url);
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, String(value));
  return url.toString();
}

/** Call an API path and read the answer whole. */
export async function api(mock: MockUpstream, path: string, options: ApiOptions = {}): Promise<Received> {
  const token = options.token === undefined ? await fetchToken(mock) : options.token;
  const headers: Record<string, string> = token === null ? {} : { authorization: `Bearer ${token}` };
  return receive(await fetch(apiUrl(mock, path, options.query), {
    method: options.method ?? 'GET',
    headers,
    ...(options.signal ? { signal: options.signal } : {}),
  }));
}

/** The `result` of a successful call; fails the test on any other answer. */
export async function resultOf<T>(mock: MockUpstream, path: string, options: ApiOptions = {}): Promise<T> {
  const answer = await api(mock, path, options);
  const envelope = answer.json<Envelope<T>>();
  if (answer.status !== 200 || envelope.code !== 0) throw new Error(`${path} failed: ${answer.status} ${answer.text}`);
  return envelope.result as T;
}
