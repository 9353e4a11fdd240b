/**
 * Raw HTTP requests to a harnessed gateway, for what `h.query()` hides: status, headers, GET,
 * other content types, batches and extensions.
 */
import type { Harness } from './gateway.js';

export interface RawResponse {
  status: number;
  headers: Headers;
  /** The parsed JSON body, or the text when it is not JSON. */
  body: any;
}

/** POSTs `body` as JSON (or as is, when it is a string) to /graphql. */
export async function post(h: Harness, body: unknown, headers: Record<string, string> = {}): Promise<RawResponse> {
  return send(h.url + '/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** GETs /graphql with `params` in the query string (objects as JSON, as clients send them). */
export async function get(h: Harness, params: Record<string, unknown>, headers: Record<string, string> = {}): Promise<RawResponse> {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    search.set(name, typeof value === 'string' ? value : JSON.stringify(value));
  }
  return send(`${h.url}/graphql?${search}`, { headers: { accept: 'application/graphql-response+json', ...headers } });
}

async function send(url: string, init: RequestInit): Promise<RawResponse> {
  const response = await fetch(url, init);
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, headers: response.headers, body };
}

/** The `extensions.code` of each error of a GraphQL answer. */
export function codesOf(body: any): unknown[] {
  return (body?.errors ?? []).map((error: any) => error.extensions?.code);
}
