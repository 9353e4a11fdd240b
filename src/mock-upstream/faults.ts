/**
 * Fault injection: the failures a real upstream (or its proxy) produces, on demand, per path, in
 * place of the normal answer; faulted requests still count in `calls()`.
 */
import { errorEnvelope, textAnswer, TOKEN_TIMEOUT_MSG, type Answer } from './reply.js';

/**
 * - `'http503'`: HTTP 503 in text (an overloaded proxy); `'non-json'`: HTTP 200 in HTML.
 * - `'hang'`: never answers; `'reset'`: the socket is destroyed without an answer.
 * - `'token-timeout'`: the documented error envelope, code 500, whatever the token.
 * - `'slow-body'`: the real answer, its first bytes at once, then one byte every 500 ms.
 * - `{ envelope: { code, msg } }`: that error envelope, with HTTP `behaviour.errorStatus`.
 * - `{ raw: { status, body, contentType } }`: exactly that answer (for malformed data).
 */
export type Fault =
  | 'http503'
  | 'hang'
  | 'non-json'
  | 'reset'
  | 'token-timeout'
  | 'slow-body'
  | { envelope: { code: number; msg: string } }
  | { raw: RawAnswer };

/** The answer of a `raw` fault. */
export interface RawAnswer {
  /** HTTP status. Default: 200. */
  status?: number;
  /** The body, sent as UTF-8 exactly as given. */
  body: string;
  /** The `Content-Type` header. Default: `application/json; charset=utf-8`. */
  contentType?: string;
}

/** Options of `fault()`. */
export interface FaultOptions {
  /** How many requests the fault affects before it clears itself. Default: until cleared. */
  times?: number;
  /** Affect only every `every`-th request the fault sees; the others do not count against `times`. Default: 1. */
  every?: number;
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

interface FaultEntry {
  fault: Fault;
  /** Requests it will still affect. */
  remaining: number;
  every: number;
  /** Requests it has seen, affected or not. */
  seen: number;
}

/** An empty fault table; while a path has its own fault, the `'*'` fault does not see its requests. */
export function createFaultTable(): FaultTable {
  const faults = new Map<string, FaultEntry>();
  const takeFrom = (key: string): Fault | undefined => {
    const entry = faults.get(key);
    if (!entry) return undefined;
    entry.seen += 1;
    if (entry.seen % entry.every !== 0) return undefined;
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
      const every = checkCount('every', options.every, 1);
      faults.set(path, { fault, remaining: checkCount('times', options.times, Infinity), every, seen: 0 });
    },
    take: (path) => takeFrom(faults.has(path) ? path : ANY_PATH),
    clear: () => faults.clear(),
  };
}

const NAMED_FAULTS = new Set(['http503', 'hang', 'non-json', 'reset', 'token-timeout', 'slow-body']);

// Private: callers from plain JavaScript or JSON test tables get a clear error, not silence.
function checkFault(fault: Fault): void {
  if (typeof fault === 'string' && NAMED_FAULTS.has(fault)) return;
  if (typeof fault === 'object' && fault !== null) {
    if ('envelope' in fault && typeof fault.envelope?.code === 'number' && typeof fault.envelope.msg === 'string') return;
    if ('raw' in fault && isRawAnswer(fault.raw)) return;
  }
  throw new TypeError(`fault must be one of ${[...NAMED_FAULTS].join(', ')}, { envelope: { code, msg } } `
    + `or { raw: { status?, body, contentType? } }, but got: ${JSON.stringify(fault)?.slice(0, 200)}`);
}

function isRawAnswer(raw: RawAnswer | undefined): boolean {
  if (typeof raw !== 'object' || raw === null || typeof raw.body !== 'string') return false;
  const statusOk = raw.status === undefined || (Number.isInteger(raw.status) && raw.status >= 200 && raw.status <= 599);
  return statusOk && (raw.contentType === undefined || typeof raw.contentType === 'string');
}

// Private: `times` and `every` are positive integers, or absent for their default.
function checkCount(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1) {
    throw new RangeError(`fault ${name} must be an integer >= 1, but got: ${value}`);
  }
  return value;
}

/** The answer a fault sends instead of the real one; `undefined` for `hang`, `reset` and `slow-body`. */
export function faultAnswer(fault: Fault, errorStatus: number, nowMs: number): Answer | undefined {
  if (typeof fault === 'object') {
    if ('raw' in fault) {
      const { status = 200, body, contentType = 'application/json; charset=utf-8' } = fault.raw;
      return { status, headers: { 'content-type': contentType }, body };
    }
    return errorEnvelope(errorStatus, fault.envelope.code, fault.envelope.msg, nowMs);
  }
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
