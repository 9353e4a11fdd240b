/** The upstream's common answer: `code` 0 means success, whatever the HTTP status. */
export interface Envelope {
  /** The return code, normalised to a number (`'0'` is 0). */
  code: number;
  /** `''` when absent. */
  msg: string;
  result: unknown;
}

const NUMERIC_STRING = /^-?\d+$/;
const MENTIONS_TOKEN = /token/i;
const MENTIONS_TIMEOUT = /time ?out|expired?/i;

/** The documented token-expiry code (`{code: 500, msg: 'token is timeout. please retry.'}`). */
export const TOKEN_TIMEOUT_CODE = 500;

/** `value` (parsed JSON) as an envelope; `undefined` without a numeric `code`. */
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

/** The upstream's "token expired" answer, its wording matched loosely: only its form is documented. */
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
