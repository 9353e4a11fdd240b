/**
 * The HTTP server around a request handler (yoga), with what a public server needs: header and
 * request timeouts (slowloris), a header size limit, a bounded body read before the handler runs
 * (doors/http/body.ts), and a graceful close.
 */
import { createServer, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { AddressInfo } from 'node:net';
import { answerFailure, withBoundedBody, type Admit, type Arrive, type BodyHandler, type BodyLimits, type BodyReading } from './body.js';
import { refusal, type Refusal } from '../../admission/refusal.js';
import { createDecodingBudget } from './decoding-budget.js';
import { writeRawRefusal } from '../../admission/refusal-writer.js';

export type { Admit, Arrive, BodyHandler, BodyRequest } from './body.js';

export interface ListenOptions<A = unknown> {
  port: number;
  host: string;
  /** Largest request body, in bytes, as sent and once decoded; larger gets 413. Default 1 MiB. */
  maxRequestBodyBytes?: number;
  /** Bytes all compressed bodies being decoded may hold at once; past it, 503 `SERVER_BUSY`. Default 32 MiB. */
  maxDecodingBytes?: number;
  /** Makes the object each request carries (the handler's third argument). Default: none. */
  arrive?: Arrive<A>;
  /** Admits a request from its headers before its body is read (not a GET, HEAD or OPTIONS). Default: every body is read. */
  admit?: Admit<A>;
  /** Time to send all request headers, in ms (Node's `headersTimeout`). Default 10 000. */
  headersTimeoutMs?: number;
  /** Time to send a whole request, in ms (Node's `requestTimeout`), at least `headersTimeoutMs`. Default 30 000. */
  requestTimeoutMs?: number;
  /** How often Node checks connections against both timeouts, in ms (Node's own 30 s is too coarse). Default 1000. */
  checkIntervalMs?: number;
  /** Told of an error the handler threw: its client gets a 500. Default: rethrown as an unhandled rejection. */
  onError?: (error: unknown) => void;
}

export interface RunningServer {
  server: Server;
  /** e.g. `http://127.0.0.1:4000` (the port actually bound). */
  url: string;
  /** Stops accepting; resolves when in-flight requests are done, or closes them after `graceMs` (default: no limit). */
  close(graceMs?: number): Promise<void>;
  /** The bytes compressed bodies being decoded hold now (`maxDecodingBytes` counts them). */
  decodingBytes(): number;
}

const HEADERS_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 30_000;
const CHECK_INTERVAL_MS = 1000;
const MAX_HEADER_BYTES = 16_384;
const MAX_DECODING_BYTES = 33_554_432;

export async function listen<A>(handler: BodyHandler<A>, options: ListenOptions<A>): Promise<RunningServer> {
  const budget = createDecodingBudget(options.maxDecodingBytes ?? MAX_DECODING_BYTES);
  const limits: BodyLimits = { maxBytes: options.maxRequestBodyBytes ?? 1_048_576, budget };
  const onError = options.onError ?? rethrown;
  const reading: BodyReading<A> = { limits, arrive: options.arrive ?? (() => undefined as A), admit: options.admit, onError };
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
  // `Expect: 100-continue`: the client is told to send its body once it is to be read (doors/http/body.ts), not before.
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

// Private: the handler runs in a request event, where a throw would end the process: answer 500 instead.
function guarded<A>(handler: BodyHandler<A>, onError: (error: unknown) => void): BodyHandler<A> {
  return (request, response, arrived) => {
    try {
      handler(request, response, arrived);
    } catch (error) {
      answerFailure(request, response, error, onError);
    }
  };
}

function rethrown(error: unknown): void {
  void Promise.reject(error);
}

const CLIENT_ERRORS: Record<string, Refusal> = {
  HPE_HEADER_OVERFLOW: refusal('REQUEST_HEADER_FIELDS_TOO_LARGE', `The request line and headers exceed ${MAX_HEADER_BYTES} bytes`),
  ERR_HTTP_REQUEST_TIMEOUT: refusal('REQUEST_TIMEOUT'),
};
const MALFORMED = refusal('BAD_REQUEST', 'The request is not valid HTTP');

// Private: Node answers an unparsable request with a bare status; this gives it the registry's
// body, then closes lingering. Nothing is written to a socket already answering.
function answerClientError(error: Error & { code?: string; rawPacket?: Buffer }, socket: Duplex): void {
  const answering = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
  if (!socket.writable || answering || error.code === 'ECONNRESET') return void socket.destroy();
  const head = error.rawPacket?.subarray(0, 5).toString('latin1') === 'HEAD ';
  writeRawRefusal(socket, CLIENT_ERRORS[error.code ?? ''] ?? MALFORMED, { head });
}

// Private: a HEAD is answered as its GET (RFC 9110 §9.3.2); Node sends no body for it.
function headAsGet<R extends { method?: string | undefined }>(request: R): R {
  if (request.method === 'HEAD') request.method = 'GET';
  return request;
}
