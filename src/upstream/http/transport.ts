import type { Dispatcher } from 'undici';
import { UpstreamError, abortedByCaller, type UpstreamFailureReason } from '../errors.js';

/**
 * One HTTP exchange with the upstream (API or token endpoint): a deadline on the whole exchange
 * (undici's own timeouts are idle timeouts a trickling body never trips), a bounded body, and
 * failures as `UPSTREAM_UNAVAILABLE` errors that cannot carry a request header.
 */
export interface TransportRequest {
  dispatcher: Dispatcher;
  /** `protocol://host:port`. */
  origin: string;
  /** Path and query sent on the wire, e.g. `/api/city/list?page=1`. */
  target: string;
  /** The operation's path for errors and logs, e.g. `/api/city/list` (no query, no origin). */
  path: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  /** Bounds connect, headers and body together, in milliseconds. */
  timeoutMs: number;
  /** A body longer than this many bytes fails the exchange. */
  maxBodyBytes: number;
  /** The caller's signal; aborting it fails the exchange at once. */
  signal?: AbortSignal;
}

export interface TransportResponse {
  status: number;
  /** The body as UTF-8 text. */
  text: string;
  /** The body's length on the wire, in bytes (for traces). */
  bytes: number;
}

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/** How much later than the call's own deadline undici's idle timeouts are set, in ms. */
const UNDICI_TIMER_SLACK_MS = 1000;

/** Sends `request` and reads the whole body; rejects only with `UPSTREAM_UNAVAILABLE`. */
export async function send(request: TransportRequest): Promise<TransportResponse> {
  const deadline = startDeadline(request.timeoutMs, request.signal);
  let status: number | undefined;
  try {
    const response = await request.dispatcher.request({
      origin: request.origin,
      path: request.target,
      method: request.method,
      headers: request.headers,
      body: request.body,
      signal: deadline.signal,
      // A backstop only: undici's coarse idle timers may fire early, so the deadline must come first.
      headersTimeout: request.timeoutMs + UNDICI_TIMER_SLACK_MS,
      bodyTimeout: request.timeoutMs + UNDICI_TIMER_SLACK_MS,
    });
    status = response.statusCode;
    const body = await readBoundedBody(response, request, status);
    return { status, text: body.toString('utf8'), bytes: body.length };
  } catch (error) {
    if (error instanceof UpstreamError) throw error;
    throw transportFailure(error, request, deadline.timedOut, status);
  } finally {
    deadline.clear();
  }
}

/** `start`'s promise raced against `signal` (`UPSTREAM_UNAVAILABLE` on abort); not started if already aborted. */
export function abortable<T>(start: () => Promise<T>, signal: AbortSignal | undefined, path: string): Promise<T> {
  if (signal === undefined) return start();
  if (signal.aborted) return Promise.reject(abortedByCaller(path));
  const promise = start();
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(abortedByCaller(path));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

interface Deadline {
  signal: AbortSignal;
  readonly timedOut: boolean;
  clear(): void;
}

// Private: one controller aborted by a cleared-at-end timer or by the caller, so nothing outlives
// the call; the caller's abort reason never reaches undici.
function startDeadline(timeoutMs: number, callerSignal: AbortSignal | undefined): Deadline {
  const controller = new AbortController();
  let timedOut = false;
  const abort = (): void => controller.abort(new DOMException('The operation was aborted', 'AbortError'));
  const timer = setTimeout(() => {
    timedOut = true;
    abort();
  }, timeoutMs);
  if (callerSignal?.aborted) abort();
  else callerSignal?.addEventListener('abort', abort, { once: true });
  return {
    signal: controller.signal,
    get timedOut() {
      return timedOut;
    },
    clear() {
      clearTimeout(timer);
      callerSignal?.removeEventListener('abort', abort);
    },
  };
}

// Private: the body as text, failing once it grows past the cap (declared or actual length).
async function readBoundedBody(response: Dispatcher.ResponseData, request: TransportRequest, status: number): Promise<Buffer> {
  const declared = Number(response.headers['content-length']);
  if (declared > request.maxBodyBytes) {
    // Destroying an unread undici body emits an error; nobody else listens for it.
    response.body.on('error', () => {}).destroy();
    throw bodyTooLarge(request, status);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > request.maxBodyBytes) throw bodyTooLarge(request, status); // leaving the loop destroys the body
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

function bodyTooLarge(request: TransportRequest, status: number): UpstreamError {
  return new UpstreamError('UPSTREAM_UNAVAILABLE',
    `${request.method} ${request.path} answered with a body over ${request.maxBodyBytes} bytes`,
    { path: request.path, status, reason: 'too_large' });
}

// Private: only the failure's name and code, never undici's message, which may quote request
// headers. Every failure but the caller's abort is transient.
function transportFailure(error: unknown, request: TransportRequest, timedOut: boolean, status: number | undefined): UpstreamError {
  const { name, code } = describe(error);
  const label = `${request.method} ${request.path}`;
  let message: string;
  let reason: UpstreamFailureReason = 'network';
  if (timedOut || (code !== undefined && TIMEOUT_CODES.has(code))) {
    message = `${label} timed out after ${request.timeoutMs} ms`;
    reason = 'timeout';
  } else if (request.signal?.aborted) {
    message = `${label} was aborted by the caller`;
    reason = 'aborted';
  } else message = `${label} failed: ${code ?? name}`;
  const cause = Object.assign(new Error(code === undefined ? name : `${name} (${code})`), { name, code });
  return new UpstreamError('UPSTREAM_UNAVAILABLE', message, { path: request.path, status, transient: reason !== 'aborted', reason, cause });
}

function describe(error: unknown): { name: string; code: string | undefined } {
  if (!(error instanceof Error)) return { name: typeof error, code: undefined };
  const code = (error as { code?: unknown }).code;
  return { name: error.name, code: typeof code === 'string' ? code : undefined };
}
