/**
 * The upstream's common answer: `{ code, msg, result }`. `code` 0 means success, whatever the
 * HTTP status; anything else is an error the upstream describes in `msg`.
 */
export interface Envelope {
  /** The return code, normalised to a number (the upstream may send `0` or `'0'`). */
  code: number;
  /** The return message; `''` when absent. */
  msg: string;
  /** The payload of a successful answer (may be `undefined` or `null`). */
  result: unknown;
}

const NUMERIC_STRING = /^-?\d+$/;
const MENTIONS_TOKEN = /token/i;
const MENTIONS_TIMEOUT = /time ?out|expired?/i;

/** The documented token-expiry code (`{code: 500, msg: 'token is timeout. please retry.'}`). */
export const TOKEN_TIMEOUT_CODE = 500;

/**
 * Reads `value` (already parsed JSON) as an envelope. Returns `undefined` when it is not one:
 * not an object, or no `code` that is a number or a numeric string.
 */
export function parseEnvelope(value: unknown): Envelope | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const record = value as Record<string, unknown>;
  const code = toCode(record.code);
  if (code === undefined) return undefined;
  const msg = typeof record.msg === 'string' ? record.msg : '';
  return { code, msg, result: record.result };
}

/** Parses `text` as JSON; `undefined` when it is not JSON at all. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * True for the upstream's "your token expired" answer. The wording is matched loosely
 * ("token is timeout. please retry.", "token expired", "Token time out") because only the
 * form, not the exact text, is documented.
 */
export function isTokenTimeout(envelope: Envelope): boolean {
  return envelope.code === TOKEN_TIMEOUT_CODE
    && MENTIONS_TOKEN.test(envelope.msg)
    && MENTIONS_TIMEOUT.test(envelope.msg);
}

// Private: a finite integer code from a number or a numeric string.
function toCode(raw: unknown): number | undefined {
  if (typeof raw === 'number') return Number.isInteger(raw) ? raw : undefined;
  if (typeof raw === 'string' && NUMERIC_STRING.test(raw.trim())) return Number(raw.trim());
  return undefined;
}
