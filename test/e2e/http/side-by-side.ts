/**
 * Two gateways over one mock upstream, the lean path on in one and off in the other, and one
 * request sent to both: what a client and an operator can see of each answer (status, headers,
 * body bytes, the request's log line) is compared.
 *
 * Each side has its own response cache and data cache; sent the same requests in the same order,
 * both hold the same state, so every answer must be the same.
 */
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { expect } from 'vitest';
import { createMockUpstream, type MockUpstream, type MockUpstreamOptions } from '../../../src/mock-upstream/index.js';
import { startGateway, type Harness } from '../../helpers/gateway.js';
import { requestLines, scrape } from '../../helpers/http.js';

export interface Pair {
  mock: MockUpstream;
  lean: Harness;
  yoga: Harness;
  close(): Promise<void>;
}

/** Both gateways, with the same environment, over a mock of their own. */
export async function startPair(env: Record<string, string> = {}, mock: MockUpstreamOptions = {}): Promise<Pair> {
  const sharedMock = await createMockUpstream(mock);
  const lean = await startGateway({ sharedMock, env, leanPath: true });
  const yoga = await startGateway({ sharedMock, env, leanPath: false });
  return {
    mock: sharedMock,
    lean,
    yoga,
    async close() {
      await lean.close();
      await yoga.close();
      await sharedMock.close();
    },
  };
}

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

/** Headers that differ between any two answers (time, connection handling, the generated id). */
const UNCOMPARED_HEADERS = new Set(['date', 'x-request-id', 'connection', 'keep-alive']);
/** Log fields that differ between any two requests. */
const UNCOMPARED_FIELDS = new Set(['time', 'pid', 'hostname', 'requestId', 'durationMs']);

/**
 * Sends `request` to the lean side, then to the yoga side, and expects the same answer and log
 * line from both; returns both exchanges for the caller's own checks.
 */
export async function sameOnBoth(pair: Pair, request: RawRequest): Promise<{ lean: Exchange; yoga: Exchange }> {
  const lean = await exchange(pair.lean, request);
  const yoga = await exchange(pair.yoga, request);
  const label = `${request.method ?? 'GET'} ${request.path ?? '/graphql'} ${JSON.stringify(request.headers ?? {})} ${request.body ?? ''}`.slice(0, 300);
  expect(comparable(lean), label).toEqual(comparable(yoga));
  expect(lean.body.equals(yoga.body), `${label}: the same body bytes`).toBe(true);
  for (const side of [lean, yoga]) {
    if (side.line !== undefined) expect(side.headers['x-request-id'], `${label}: the logged request id is sent`).toBe(side.line.requestId);
  }
  return { lean, yoga };
}

// Private: what must be the same on both sides (the body as text, for a readable diff).
function comparable(side: Exchange) {
  const headers = Object.fromEntries(Object.entries(side.headers).filter(([name]) => !UNCOMPARED_HEADERS.has(name)));
  const line = side.line && Object.fromEntries(Object.entries(side.line).filter(([name]) => !UNCOMPARED_FIELDS.has(name)));
  return { status: side.status, headers, body: side.body.toString('utf8'), line };
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

/** Metrics counted per request (durations apart): the same requests must count the same. */
const COUNTED = /^(gateway_graphql_requests_total|gateway_graphql_request_duration_seconds_count|gateway_rejected_requests_total|gateway_cache_lookups_total|gateway_upstream_calls_total)\b/;

/** The samples of the per-request counters in `h`'s /metrics. */
export async function requestCounters(h: Harness): Promise<string[]> {
  return (await scrape(h)).split('\n').filter((line) => COUNTED.test(line));
}
