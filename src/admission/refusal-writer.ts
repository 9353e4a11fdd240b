/**
 * The one writer of a refusal made outside GraphQL, on whatever a door answers through: yoga's
 * Fetch `Response`, Node's `ServerResponse`, or a raw socket. Every one carries the same GraphQL
 * error body with `extensions.code`, and `Cache-Control: no-store`.
 */
import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FetchAPI } from 'graphql-yoga';
import type { Refusal } from './refusal.js';

/** How long a refused raw socket's last bytes are read before it is closed, in ms. */
const LINGER_MS = 1000;

export function refusalPayload({ code, message }: Refusal): { errors: [{ message: string; extensions: { code: string } }] } {
  return { errors: [{ message, extensions: { code } }] };
}

export function refusalBody(refused: Refusal): string {
  return JSON.stringify(refusalPayload(refused));
}

/** `refused` as yoga's `endResponse` answers it, before yoga has read the request. */
export function refusalResponse(fetchAPI: Pick<FetchAPI, 'Response'>, refused: Refusal): Response {
  return fetchAPI.Response.json(refusalPayload(refused), { status: refused.status, headers: { 'cache-control': 'no-store', ...refused.headers } });
}

/** Writes `refused` on `response` with its length, then closes the connection (its body may be unread). */
export function writeRefusal(response: ServerResponse, refused: Refusal, headers: Record<string, string> = {}): void {
  const body = refusalBody(refused);
  response.writeHead(refused.status, {
    'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'cache-control': 'no-store', connection: 'close',
    ...headers, ...refused.headers,
  }).end(body);
}

/**
 * Writes `refused` on a raw socket as a whole HTTP/1.1 answer (no body for a HEAD), then closes
 * lingering: what the client still sends is drained for LINGER_MS, since a reset could lose the answer.
 */
export function writeRawRefusal(socket: Duplex, refused: Refusal, { head = false }: { head?: boolean } = {}): void {
  if (!socket.writable) return void socket.destroy();
  const body = refusalBody(refused);
  const extra = Object.entries(refused.headers ?? {}).map(([name, value]) => `${name}: ${value}\r\n`).join('');
  socket.end(
    `HTTP/1.1 ${refused.status} ${STATUS_CODES[refused.status]}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n`
    + `cache-control: no-store\r\n${extra}connection: close\r\n\r\n${head ? '' : body}`,
  );
  socket.on('error', () => {}).on('data', () => {}).resume();
  setTimeout(() => socket.destroy(), LINGER_MS).unref();
}
