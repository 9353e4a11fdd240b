/**
 * Fault injection: the failures a real upstream (or the proxy in front of it) produces, on
 * demand, per path. A fault replaces the normal answer of the requests it affects; faulted
 * requests still count in `calls()`.
 */
import { errorEnvelope, textAnswer, TOKEN_TIMEOUT_MSG, type Answer } from './answer.js';

/**
 * - `'http503'`: HTTP 503 with a text body, no envelope (an overloaded proxy).
 * - `'hang'`: never answers; the socket stays open until the client gives up or `close()`.
 * - `'non-json'`: HTTP 200 with an HTML body (a captive portal or error page).
 * - `'reset'`: the socket is destroyed without an answer.
 * - `'token-timeout'`: the documented error envelope, code 500 `token is timeout. please retry.`,
 *   whatever the token.
 * - `'slow-body'`: the real answer, with status, headers and its first bytes at once, then one
 *   more byte every 500 ms.
 * - `{ envelope: { code, msg } }`: that error envelope, with HTTP `behaviour.errorStatus`.
 */
export type Fault =
  | 'http503'
  | 'hang'
  | 'non-json'
  | 'reset'
  | 'token-timeout'
  | 'slow-body'
  | { envelope: { code: number; msg: string } };

/** Options of `fault()`. */
export interface FaultOptions {
  /** How many requests the fault affects before it clears itself. Default: until cleared. */
  times?: number;
}

/** The path that matches every request, token endpoint included. */
export const ANY_PATH = '*';

/** Interval between trickled bytes of a `slow-body` answer, in ms. */
export const SLOW_BODY_INTERVAL_MS = 500;

/** Faults by path, each with how many more requests it affects. */
export interface FaultTable {
  set(path: string, fault: Fault | null, options?: FaultOptions): void;
  /** The fault for a request to `path`, if any, counting it against `times`. */
  take(path: string): Fault | undefined;
  clear(): void;
}

/** An empty fault table. A fault on the exact path wins over one on `'*'`. */
export function createFaultTable(): FaultTable {
  const faults = new Map<string, { fault: Fault; remaining: number }>();
  const takeFrom = (key: string): Fault | undefined => {
    const entry = faults.get(key);
    if (!entry) return undefined;
    entry.remaining -= 1;
    if (entry.remaining <= 0) faults.delete(key);
    return entry.fault;
  };
  return {
    set(path, fault, options = {}) {
      if (fault === null) {
        faults.delete(path);
        return;
      }
      checkFault(fault);
      faults.set(path, { fault, remaining: checkTimes(options.times) });
    },
    take: (path) => takeFrom(path) ?? takeFrom(ANY_PATH),
    clear: () => faults.clear(),
  };
}

const NAMED_FAULTS = new Set(['http503', 'hang', 'non-json', 'reset', 'token-timeout', 'slow-body']);

// Private: callers from plain JavaScript or JSON test tables get a clear error, not silence.
function checkFault(fault: Fault): void {
  if (typeof fault === 'string' && NAMED_FAULTS.has(fault)) return;
  if (typeof fault === 'object' && typeof fault.envelope?.code === 'number' && typeof fault.envelope.msg === 'string') return;
  throw new TypeError(`fault must be one of ${[...NAMED_FAULTS].join(', ')} or { envelope: { code, msg } }, but got: ${JSON.stringify(fault)}`);
}

// Private: `times` is a positive integer, or absent for "until cleared".
function checkTimes(times: number | undefined): number {
  if (times === undefined) return Infinity;
  if (!Number.isInteger(times) || times < 1) {
    throw new RangeError(`fault times must be an integer >= 1, but got: ${times}`);
  }
  return times;
}

/**
 * The answer a fault sends in place of the real one, or `undefined` for the faults that act on
 * the socket or on the real answer (`hang`, `reset`, `slow-body`).
 */
export function faultAnswer(fault: Fault, errorStatus: number, nowMs: number): Answer | undefined {
  if (typeof fault === 'object') return errorEnvelope(errorStatus, fault.envelope.code, fault.envelope.msg, nowMs);
  switch (fault) {
    case 'http503':
      return textAnswer(503, 'Service Unavailable');
    case 'non-json':
      return {
        status: 200,
        headers: { 'content-type': 'text/html; charset=utf-8' },
        body: '<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head>'
          + '<body><h1>502 Bad Gateway</h1><hr><center>nginx</center></body></html>',
      };
    case 'token-timeout':
      return errorEnvelope(errorStatus, 500, TOKEN_TIMEOUT_MSG, nowMs);
    default:
      return undefined;
  }
}
