/**
 * The HTTP server around a request handler (yoga), with what a public server needs: header and
 * request timeouts (slowloris), a header size limit, a request body read before the handler runs
 * (edge/body.ts: admitted from its headers first, then bounded as sent and as decoded, bodies being
 * decoded bounded together), and a graceful close.
 */
import { createServer, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { AddressInfo } from 'node:net';
import { answerFailure, withBoundedBody, type Admit, type BodyHandler, type BodyLimits, type BodyReading } from './body.js';
import { refusal, type Refusal } from './admission/refusal.js';
import { createDecodingBudget } from './decoding-budget.js';
import { writeRawRefusal } from './refusal-writer.js';

export type { Admit, BodyHandler, BodyRequest } from './body.js';

export interface ListenOptions<A = unknown> {
  port: number;
  host: string;
  /**
   * Largest request body accepted, in bytes, as sent and, when it is compressed, once decoded;
   * a larger one gets 413. Default 1 MiB.
   */
  maxRequestBodyBytes?: number;
  /**
   * Bytes that compressed request bodies being decoded may hold at once, all of them together
   * (edge/decoding-budget.ts); one that would pass it gets 503 `SERVER_BUSY`. Default 32 MiB.
   */
  maxDecodingBytes?: number;
  /**
   * Decides from a request's headers, before its body is read, whether it is: what admitted it
   * (passed on to the handler), or undefined to hand it over at once, its body unread, for the
   * handler to refuse. Not asked of a GET, HEAD or OPTIONS. Default: every body is read.
   */
  admit?: Admit<A>;
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
  /** The bytes compressed bodies being decoded hold now (`maxDecodingBytes` counts them). */
  decodingBytes(): number;
}

/** Time for a client to send all request headers, in ms. */
const HEADERS_TIMEOUT_MS = 10_000;
/** Time for a client to send a whole request, in ms. */
const REQUEST_TIMEOUT_MS = 30_000;
/** How often open connections are checked against those timeouts, in ms. */
const CHECK_INTERVAL_MS = 1000;
/** Largest total size of request headers, in bytes. */
const MAX_HEADER_BYTES = 16_384;
/** Bytes compressed bodies being decoded may hold at once. */
const MAX_DECODING_BYTES = 33_554_432;

export async function listen<A>(handler: BodyHandler<A>, options: ListenOptions<A>): Promise<RunningServer> {
  const budget = createDecodingBudget(options.maxDecodingBytes ?? MAX_DECODING_BYTES);
  const limits: BodyLimits = { maxBytes: options.maxRequestBodyBytes ?? 1_048_576, budget };
  const onError = options.onError ?? rethrown;
  const reading: BodyReading<A> = { limits, admit: options.admit, onError };
  const safe = guarded(handler, onError);
  const headersTimeout = options.headersTimeoutMs ?? HEADERS_TIMEOUT_MS;
  const server = createServer(
    {
      headersTimeout,
      requestTimeout: Math.max(headersTimeout, options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS),
      connectionsCheckingInterval: options.checkIntervalMs ?? CHECK_INTERVAL_MS,
      maxHeaderSize: MAX_HEADER_BYTES,
    },
    (request, response) => withBoundedBody(headAsGet(request), response, reading, safe),
  );
  // `Expect: 100-continue`: the client is told to send its body once it is to be read (edge/body.ts), not before.
  server.on('checkContinue', (request, response) => withBoundedBody(request, response, reading, safe));
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
    decodingBytes: budget.held,
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
function guarded<A>(handler: BodyHandler<A>, onError: (error: unknown) => void): BodyHandler<A> {
  return (request, response, admitted) => {
    try {
      handler(request, response, admitted);
    } catch (error) {
      answerFailure(request, response, error, onError);
    }
  };
}

function rethrown(error: unknown): void {
  void Promise.reject(error);
}

/** Node's own answers to a request it cannot parse, by Node's error code, as refusals of the registry. */
const CLIENT_ERRORS: Record<string, Refusal> = {
  HPE_HEADER_OVERFLOW: refusal('REQUEST_HEADER_FIELDS_TOO_LARGE', `The request line and headers exceed ${MAX_HEADER_BYTES} bytes`),
  ERR_HTTP_REQUEST_TIMEOUT: refusal('REQUEST_TIMEOUT'),
};
const MALFORMED = refusal('BAD_REQUEST', 'The request is not valid HTTP');

// Private: Node answers an unparsable request (a URL or headers over maxHeaderSize, a client too
// slow to send its request, broken HTTP) with a bare status and no body; this says the same
// with the body every other refusal has, then closes (refusal-writer.ts's lingering close: a
// client still trickling bytes would keep a half-closed socket open). Nothing is written to a
// socket already answering.
function answerClientError(error: Error & { code?: string; rawPacket?: Buffer }, socket: Duplex): void {
  // A kept-alive socket has carried earlier answers: only one already answering now is off limits.
  const answering = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
  if (!socket.writable || answering || error.code === 'ECONNRESET') return void socket.destroy();
  // The method is known when the bytes that failed hold the request line, as they do for a URL too long.
  const head = error.rawPacket?.subarray(0, 5).toString('latin1') === 'HEAD ';
  writeRawRefusal(socket, CLIENT_ERRORS[error.code ?? ''] ?? MALFORMED, { head });
}

// Private: a HEAD is its GET without the body (RFC 9110 §9.3.2), so every handler answers it as
// the GET, headers and all; Node, which made the response for a HEAD, sends no body.
function headAsGet<R extends { method?: string | undefined }>(request: R): R {
  if (request.method === 'HEAD') request.method = 'GET';
  return request;
}
