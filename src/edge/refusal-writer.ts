/**
 * The one writer of a refusal made outside GraphQL (edge/admission/refusal.ts: a registry code,
 * its status, a message and headers), on each thing a door answers through: yoga's Fetch
 * `Response`, Node's `ServerResponse`, and a raw socket (a request Node could not parse, a
 * WebSocket upgrade), whose HTTP is written here by hand. Every one carries the same body,
 * `{"errors":[{"message":…,"extensions":{"code":…}}]}`, which clients read as any GraphQL error,
 * and `Cache-Control: no-store`, like every refusal (use-http-caching.ts sets it on yoga's).
 */
import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FetchAPI } from 'graphql-yoga';
import type { Refusal } from './admission/refusal.js';

/** How long a refused raw socket's last bytes are read before it is closed, in ms. */
const LINGER_MS = 1000;

/** The body of `refused`, as a value (for a Fetch `Response` made from JSON). */
export function refusalPayload({ code, message }: Refusal): { errors: [{ message: string; extensions: { code: string } }] } {
  return { errors: [{ message, extensions: { code } }] };
}

/** The body of `refused`, as JSON text. */
export function refusalBody(refused: Refusal): string {
  return JSON.stringify(refusalPayload(refused));
}

/** `refused` as yoga's `endResponse` answers it, before yoga has read the request. */
export function refusalResponse(fetchAPI: FetchAPI, refused: Refusal): Response {
  return fetchAPI.Response.json(refusalPayload(refused), { status: refused.status, headers: refused.headers ?? {} });
}

/**
 * Writes `refused` on `response` and closes the connection after it (its body may be unread);
 * its length is said, so that a client can tell it whole from one cut by the close.
 */
export function writeRefusal(response: ServerResponse, refused: Refusal, headers: Record<string, string> = {}): void {
  const body = refusalBody(refused);
  response.writeHead(refused.status, {
    'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'cache-control': 'no-store', connection: 'close',
    ...headers, ...refused.headers,
  }).end(body);
}

/**
 * Writes `refused` on a raw socket as a whole HTTP/1.1 answer (without its body when it answers
 * a HEAD, whose client would read a body as the next answer), then closes it: a lingering close,
 * where what the client still sends is read and dropped for up to LINGER_MS, since closing with
 * unread bytes resets the connection, and a reset can lose the answer on its way.
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
