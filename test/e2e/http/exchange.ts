/**
 * One request sent byte for byte (no header added but `host`, `connection` and
 * `content-length`), and what a client and an operator see of its answer: status, headers, body
 * bytes and the request's log line.
 */
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { expect } from 'vitest';
import type { Harness } from '../../helpers/gateway.js';
import { requestLines } from '../../helpers/http.js';

/** A request as sent, byte for byte: no header is added but `host`, `connection` and `content-length`. */
export interface RawRequest {
  method?: string;
  /** Path and query string. Default `/graphql`. */
  path?: string;
  headers?: Record<string, string>;
  body?: string;
}

/** What came back, and the `graphql request` log line written for it (none for a preflight). */
export interface Exchange {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  line: Record<string, any> | undefined;
}

/** A JSON POST to /graphql, as most clients send it; `headers` replace the defaults. */
export function jsonPost(body: unknown, headers: Record<string, string> = {}): RawRequest {
  return {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  };
}

/** A GET of /graphql with `params` in the query string (objects as JSON). */
export function graphqlGet(params: Record<string, unknown>, headers: Record<string, string> = { accept: 'application/graphql-response+json' }): RawRequest {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) search.set(name, typeof value === 'string' ? value : JSON.stringify(value));
  return { method: 'GET', path: `/graphql?${search}`, headers };
}

/**
 * Sends `request` to `h` over a connection of its own and waits for the request's log line (a
 * CORS preflight or a request to another path than /graphql gets none: its lines, none or stray
 * ones, are compared all the same).
 */
export async function exchange(h: Harness, request: RawRequest): Promise<Exchange> {
  const before = requestLines(h).length;
  const path = request.path ?? '/graphql';
  const answer = await send(`${h.url}${path}`, request);
  if (request.method === 'OPTIONS' || path.split('?')[0] !== '/graphql') return { ...answer, line: requestLines(h)[before] };
  // An answer in parts is logged after its last part: the line may follow the bytes.
  await expect.poll(() => requestLines(h).length, { message: `a graphql request line for ${path}` }).toBeGreaterThan(before);
  const lines = requestLines(h).slice(before);
  expect(lines, 'exactly one graphql request line').toHaveLength(1);
  return { ...answer, line: lines[0] };
}

// Private: node:http rather than fetch, which would add `accept`, `user-agent`, `sec-fetch-mode` …
function send(url: string, { method = 'GET', headers = {}, body }: RawRequest): Promise<Omit<Exchange, 'line'>> {
  return new Promise((resolve, reject) => {
    const lengthHeader = body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) };
    const outgoing = httpRequest(url, { method, headers: { ...headers, ...lengthHeader }, agent: false }, (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('error', reject);
      incoming.on('end', () => resolve({ status: incoming.statusCode!, headers: incoming.headers, body: Buffer.concat(chunks) }));
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}
