/**
 * Answers are computed first and written afterwards, so one answer can be sent whole or
 * trickled byte by byte (the `slow-body` fault) without the operations knowing.
 */
import type { ServerResponse } from 'node:http';

/** One HTTP answer, ready to write. */
export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** The message of the documented error case, word for word. */
export const TOKEN_TIMEOUT_MSG = 'token is timeout. please retry.';

/** Unix seconds, as the envelope's `timestamp` carries them. */
export function unixSeconds(nowMs: number): number {
  return Math.floor(nowMs / 1000);
}

/** A JSON answer. */
export function jsonAnswer(status: number, value: unknown, headers: Record<string, string> = {}): Answer {
  return {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
    body: JSON.stringify(value),
  };
}

/** A plain-text answer, as a proxy or a framework's default handler would send. */
export function textAnswer(status: number, body: string, headers: Record<string, string> = {}): Answer {
  return { status, headers: { 'content-type': 'text/plain; charset=utf-8', ...headers }, body };
}

/** The success envelope around `result`. */
export function successEnvelope(result: unknown, nowMs: number): Answer {
  return jsonAnswer(200, {
    code: 0, msg: '', message: 'success', type: 'success', timestamp: unixSeconds(nowMs), result,
  });
}

/** An error envelope: `code`, `msg`, `timestamp` and no `result`, with HTTP `status`. */
export function errorEnvelope(status: number, code: number, msg: string, nowMs: number): Answer {
  return jsonAnswer(status, { code, msg, timestamp: unixSeconds(nowMs) });
}

/** Write `answer` at once. */
export function writeAnswer(res: ServerResponse, answer: Answer): void {
  const body = Buffer.from(answer.body, 'utf8');
  res.writeHead(answer.status, { ...answer.headers, 'content-length': String(body.length) });
  res.end(body);
}

/** How many bytes of a trickled body go out with the headers. */
const TRICKLE_HEAD_BYTES = 16;

/**
 * Write `answer`'s headers (full `Content-Length`) and first bytes at once, then a byte every
 * `intervalMs`; returns the timer, which stops when the body is done or the connection closes.
 */
export function trickleAnswer(res: ServerResponse, answer: Answer, intervalMs: number): NodeJS.Timeout {
  const body = Buffer.from(answer.body, 'utf8');
  res.writeHead(answer.status, { ...answer.headers, 'content-length': String(body.length) });
  let offset = Math.min(TRICKLE_HEAD_BYTES, body.length);
  res.write(body.subarray(0, offset));
  const timer = setInterval(() => {
    res.write(body.subarray(offset, offset + 1));
    offset += 1;
    if (offset >= body.length) {
      clearInterval(timer);
      res.end();
    }
  }, intervalMs);
  if (offset >= body.length) {
    clearInterval(timer);
    res.end();
  }
  res.on('close', () => clearInterval(timer));
  return timer;
}
