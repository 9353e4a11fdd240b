/**
 * Every error code the gateway can answer with, in one registry: its HTTP status (where the
 * refusal comes before GraphQL runs, or is one GraphQL-over-HTTP gives a status) and its default
 * message. Nothing else invents a code: a GraphQL error is made by `coded()` (graph-errors.ts),
 * an upstream failure carries one of the upstream codes (upstream/errors.ts), and `codeOf` reads
 * any of them back. The README's table of error codes is checked against this one.
 *
 * No GraphQL here: the upstream and cache layers, which know nothing of GraphQL, use it too.
 */

/** One code: the HTTP status it is answered with (200 when it comes inside a GraphQL answer), and what it means. */
export interface ErrorSpec {
  status: number;
  message: string;
}

/** The registry. Add a code here, with its README row, before using it anywhere. */
export const ERRORS = {
  INTERNAL_SERVER_ERROR: { status: 500, message: 'Unexpected error.' },
  BAD_USER_INPUT: { status: 200, message: 'An argument is not valid' },
  UPSTREAM_ERROR: { status: 200, message: 'The upstream answered with an error' },
  UPSTREAM_UNAVAILABLE: { status: 200, message: 'The upstream is unavailable' },
  UPSTREAM_AUTH_FAILED: { status: 200, message: 'The gateway could not authenticate with the upstream' },
} as const satisfies Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof ERRORS;

/** Whether `code` is one of the registry's. */
export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && Object.hasOwn(ERRORS, code);
}

/**
 * The code of any error: a GraphQL error's `extensions.code` (or its original error's), an
 * error's own `code` when the registry has it (an `UpstreamError`), else `INTERNAL_SERVER_ERROR`.
 */
export function codeOf(error: unknown): string {
  if (typeof error !== 'object' || error === null) return 'INTERNAL_SERVER_ERROR';
  const { extensions, code, originalError } = error as { extensions?: { code?: unknown }; code?: unknown; originalError?: unknown };
  if (typeof extensions?.code === 'string') return extensions.code;
  if (isErrorCode(code)) return code;
  return originalError === undefined ? 'INTERNAL_SERVER_ERROR' : codeOf(originalError);
}
