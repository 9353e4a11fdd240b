/**
 * The HTTP server around a request handler (yoga), with what a public server needs: header and
 * request timeouts (slowloris), a header size limit, a request body limit, and a graceful close.
 *
 * A body sent with a `Content-Encoding` (gzip, deflate, br; zstd where this Node has it) is
 * decoded here, as it streams in, and the limit counts the decoded bytes: a zip bomb is refused
 * as soon as it passes the limit, never inflated whole. The handler then sees a plain body.
 */
import * as zlib from 'node:zlib';
import { createServer, STATUS_CODES, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { Duplex, Transform } from 'node:stream';
import type { AddressInfo } from 'node:net';
import { REQUEST_ID_HEADER, requestIdFrom } from '../request/record.js';

export interface ListenOptions {
  port: number;
  host: string;
  /**
   * Largest request body accepted, in bytes, as sent and, when it is compressed, once decoded;
   * a larger one gets 413. Default 1 MiB.
   */
  maxRequestBodyBytes?: number;
  /** Time for a client to send all request headers, in ms (Node's `headersTimeout`). Default 10 000. */
  headersTimeoutMs?: number;
  /**
   * Time for a client to send a whole request, body included, in ms (Node's `requestTimeout`);
   * never less than `headersTimeoutMs`. Default 30 000.
   */
  requestTimeoutMs?: number;
  /**
   * How often Node checks open connections against the two timeouts above, in ms (Node's
   * `connectionsCheckingInterval`): a slow client is cut off at most this long after its bound.
   * Node's own default, 30 s, let a trickling client hold a connection for 40 s against 10 s
   * configured. Default 1000.
   */
  checkIntervalMs?: number;
  /**
   * Told of an error the handler threw (a bug): its client gets a 500, and the process goes on.
   * Default: it is rethrown as an unhandled rejection, which main.ts logs.
   */
  onError?: (error: unknown) => void;
}

export interface RunningServer {
  server: Server;
  /** e.g. `http://127.0.0.1:4000` (the port actually bound). */
  url: string;
  /**
   * Stops accepting and resolves once in-flight requests are done, or after `graceMs` (default:
   * no limit), when the connections still open are closed.
   */
  close(graceMs?: number): Promise<void>;
}

/** Time for a client to send all request headers, in ms. */
const HEADERS_TIMEOUT_MS = 10_000;
/** Time for a client to send a whole request, in ms. */
const REQUEST_TIMEOUT_MS = 30_000;
/** How often open connections are checked against those timeouts, in ms. */
const CHECK_INTERVAL_MS = 1000;
/** Largest total size of request headers, in bytes. */
const MAX_HEADER_BYTES = 16_384;

export async function listen(handler: RequestListener, options: ListenOptions): Promise<RunningServer> {
  const maxBody = options.maxRequestBodyBytes ?? 1_048_576;
  const safe = guarded(handler, options.onError ?? rethrown);
  const headersTimeout = options.headersTimeoutMs ?? HEADERS_TIMEOUT_MS;
  const server = createServer(
    {
      headersTimeout,
      requestTimeout: Math.max(headersTimeout, options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS),
      connectionsCheckingInterval: options.checkIntervalMs ?? CHECK_INTERVAL_MS,
      maxHeaderSize: MAX_HEADER_BYTES,
    },
    (request, response) => withBoundedBody(request, response, maxBody, safe),
  );
  server.on('clientError', answerClientError);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host === '0.0.0.0' || options.host === '::' ? 'localhost' : options.host;
  return {
    server,
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    close: (graceMs) => close(server, graceMs),
  };
}

function close(server: Server, graceMs: number | undefined): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = graceMs === undefined ? undefined : setTimeout(() => server.closeAllConnections(), graceMs);
    server.close(() => {
      clearTimeout(timer);
      resolve();
    });
    server.closeIdleConnections();
  });
}

// Private: the handler runs in an event of the request (its body's last), where a throw would end
// the process: it answers 500 instead (or cuts a response already begun) and reports the error.
function guarded(handler: RequestListener, onError: (error: unknown) => void): RequestListener {
  return (request, response) => {
    try {
      handler(request, response);
    } catch (error) {
      if (response.headersSent) response.destroy();
      else refuse(request, response, 500, 'INTERNAL_SERVER_ERROR', 'Unexpected error.');
      onError(error);
    }
  };
}

function rethrown(error: unknown): void {
  void Promise.reject(error);
}

/** How a request body may be compressed (`Content-Encoding`), and each one's streaming decoder. */
const zstd = (zlib as { createZstdDecompress?: () => Transform }).createZstdDecompress;
const DECODERS: Record<string, () => Transform> = {
  gzip: () => zlib.createGunzip(),
  'x-gzip': () => zlib.createGunzip(), // RFC 9110 §8.4.1.3: the same as gzip
  deflate: () => zlib.createInflate(),
  br: () => zlib.createBrotliDecompress(),
  ...(zstd === undefined ? {} : { zstd: () => zstd.call(zlib) }),
};
const ENCODINGS = Object.keys(DECODERS).filter((name) => name !== 'x-gzip').join(', ');

type Refusal = 'too-large' | 'corrupt';

// Private: yoga reads the body itself, without a limit; read it here first, bounded, and hand it
// over as `request.body`, which @whatwg-node/server uses instead of the (consumed) stream. The
// handler runs in the body's last event, with no promise between (a turn of microtasks per
// request on the hot path).
function withBoundedBody(
  request: IncomingMessage & { body?: Buffer },
  response: ServerResponse,
  maxBytes: number,
  handler: RequestListener,
): void {
  if (request.method === 'GET' || request.method === 'HEAD' || request.method === 'OPTIONS') {
    handler(request, response);
    return;
  }
  const encoding = contentEncoding(request.headers['content-encoding']);
  const decoder = encoding === undefined ? undefined : DECODERS[encoding];
  if (encoding !== undefined && decoder === undefined) {
    return refuse(request, response, 415, 'UNSUPPORTED_MEDIA_TYPE',
      `The request body's Content-Encoding must be one of: ${ENCODINGS}; or none`, { 'accept-encoding': ENCODINGS });
  }
  if (Number(request.headers['content-length']) > maxBytes) return tooLarge(request, response, maxBytes);
  readBody(request, maxBytes, decoder?.(), (body) => {
    if (body === undefined) return void response.destroy();
    if (body === 'too-large') return tooLarge(request, response, maxBytes);
    if (body === 'corrupt') return refuse(request, response, 400, 'BAD_REQUEST', `The request body is not valid ${encoding} data`);
    if (decoder !== undefined) {
      // Plain from here on: what the handler reads of these would describe the compressed bytes.
      delete request.headers['content-encoding'];
      delete request.headers['content-length'];
    }
    request.body = body;
    handler(request, response);
  });
}

// Private: the one coding a body was sent with (`identity` is none), lower case; a list of two
// or more is returned whole, which no decoder matches.
function contentEncoding(header: string | undefined): string | undefined {
  const codings = (header ?? '').toLowerCase().split(',').map((one) => one.trim()).filter((one) => one !== '' && one !== 'identity');
  return codings.length === 0 ? undefined : codings.join(', ');
}

// Private: the body, through `decoder` when it is compressed. Both the bytes received and the
// bytes decoded are bounded by maxBytes (empty deflate blocks decode to nothing); past either,
// decoding stops at once and the rest is discarded, unread. A failed request reads as undefined.
function readBody(request: IncomingMessage, maxBytes: number, decoder: Transform | undefined, done: (body: Buffer | Refusal | undefined) => void): void {
  const source = decoder ?? request;
  const chunks: Buffer[] = [];
  let size = 0;
  let received = 0;
  const settle = (outcome: Buffer | Refusal | Error) => {
    request.off('data', onReceived).off('error', settle);
    source.off('data', onData).off('end', onEnd);
    if (decoder !== undefined) {
      request.unpipe(decoder);
      decoder.off('error', onCorrupt).on('error', () => {}).destroy();
    }
    if (!Buffer.isBuffer(outcome)) request.resume(); // discard the rest; the refusal closes the connection
    done(outcome instanceof Error ? undefined : outcome);
  };
  const onData = (chunk: Buffer) => {
    size += chunk.length;
    if (size <= maxBytes) chunks.push(chunk);
    else settle('too-large');
  };
  const onEnd = () => settle(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
  const onReceived = (chunk: Buffer) => {
    received += chunk.length;
    if (received > maxBytes) settle('too-large');
  };
  // No bytes at all decode to an empty body, as if sent plain.
  const onCorrupt = () => settle(received === 0 ? Buffer.alloc(0) : 'corrupt');
  request.on('error', settle);
  if (decoder !== undefined) {
    request.on('data', onReceived);
    decoder.on('error', onCorrupt);
    request.pipe(decoder);
  }
  source.on('data', onData).on('end', onEnd);
}

function tooLarge(request: IncomingMessage, response: ServerResponse, maxBytes: number): void {
  refuse(request, response, 413, 'PAYLOAD_TOO_LARGE', `The request body exceeds ${maxBytes} bytes`);
}

// Private: answered before yoga sees the request, so the request id is set here.
function refuse(
  request: IncomingMessage, response: ServerResponse, status: number, code: string, message: string, extra: Record<string, string> = {},
): void {
  const body = JSON.stringify({ errors: [{ message, extensions: { code } }] });
  const requestId = requestIdFrom(request.headers[REQUEST_ID_HEADER] as string | undefined);
  // no-store like every refusal before GraphQL runs (use-http-caching.ts sets it on yoga's).
  const headers = { 'content-type': 'application/json', 'cache-control': 'no-store', connection: 'close', [REQUEST_ID_HEADER]: requestId, ...extra };
  response.writeHead(status, headers).end(body);
}

/** Node's own answers to a request it cannot parse, as coded GraphQL-shaped errors. */
const CLIENT_ERRORS: Record<string, { status: number; code: string; message: string }> = {
  HPE_HEADER_OVERFLOW: { status: 431, code: 'REQUEST_HEADER_FIELDS_TOO_LARGE', message: `The request line and headers exceed ${MAX_HEADER_BYTES} bytes` },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, code: 'REQUEST_TIMEOUT', message: 'The request was not received in time' },
};
const MALFORMED = { status: 400, code: 'BAD_REQUEST', message: 'The request is not valid HTTP' };
/** How long a refused client's last bytes are read before its connection is closed, in ms. */
const LINGER_MS = 1000;

// Private: Node answers an unparsable request (a URL or headers over maxHeaderSize, a client too
// slow to send its request, broken HTTP) with a bare status and no body; this says the same
// with the body every other refusal has, then closes (at the latest after LINGER_MS: a client
// still trickling bytes would keep a half-closed socket open). Nothing is written to a socket
// already answering.
function answerClientError(error: Error & { code?: string; rawPacket?: Buffer }, socket: Duplex): void {
  // A kept-alive socket has carried earlier answers: only one already answering now is off limits.
  const answering = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
  if (!socket.writable || answering || error.code === 'ECONNRESET') return void socket.destroy();
  const { status, code, message } = CLIENT_ERRORS[error.code ?? ''] ?? MALFORMED;
  const body = JSON.stringify({ errors: [{ message, extensions: { code } }] });
  // The answer to a HEAD has no body (its client would read one as the next answer); the method
  // is known when the bytes that failed hold the request line, as they do for a URL too long.
  const head = error.rawPacket?.subarray(0, 5).toString('latin1') === 'HEAD ';
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\ncache-control: no-store\r\nconnection: close\r\n\r\n${head ? '' : body}`);
  // Lingering close: what the client still sends is read and dropped for a moment, since closing
  // with unread bytes resets the connection, and a reset can lose the answer on its way.
  socket.on('data', () => {}).resume();
  setTimeout(() => socket.destroy(), LINGER_MS).unref();
}
