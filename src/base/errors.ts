/**
 * Every error code the gateway can answer with, its HTTP status and default message; nothing else
 * invents a code. No GraphQL here, so the upstream and cache layers can use it too.
 */

/** One code: the HTTP status it is answered with, and its message when the caller gives none. */
export interface ErrorSpec {
  /** HTTP status of an answer carrying this code: 200 inside a GraphQL answer, else the refusal's. */
  status: number;
  message: string;
  /** An error in the document: GraphQL over HTTP sets its status by `Accept`, so `coded` sets none. */
  document?: true;
}

/** The registry. Add a code here, with its row in docs/errors.md, before using it anywhere. */
export const ERRORS = {
  // Inside a GraphQL answer: the rest of the answer still resolves.
  INTERNAL_SERVER_ERROR: { status: 200, message: 'Unexpected error.' },
  BAD_USER_INPUT: { status: 200, message: 'An argument is not valid' },
  UPSTREAM_ERROR: { status: 200, message: 'The upstream answered with an error' },
  UPSTREAM_UNAVAILABLE: { status: 200, message: 'The upstream is unavailable' },
  UPSTREAM_AUTH_FAILED: { status: 200, message: 'The gateway could not authenticate with the upstream' },
  UPSTREAM_DATA_INVALID: { status: 200, message: 'The upstream sent a value out of range' },
  FEATURE_DISABLED: { status: 200, message: 'This field needs the catalog index, which this gateway runs without (INDEX_ENABLED=false)' },
  ITEM_LIMIT_EXCEEDED: { status: 200, message: 'This operation could return more list entries than one operation may' },
  UPSTREAM_BUDGET_EXCEEDED: { status: 200, message: 'This operation needs more upstream calls than one request may' },
  // Live subscriptions and WebSocket operations: in an event or an `error` message.
  TOO_MANY_SUBSCRIPTIONS: { status: 200, message: 'Too many live subscriptions' },
  TOO_MANY_WATCHED_KEYS: { status: 200, message: 'Too many sites watched' },
  TOO_MANY_OPERATIONS: { status: 200, message: 'Too many operations on this connection' },
  OPERATION_ENDED: { status: 200, message: 'The operation ended before it ran' },
  // Errors in the document, before anything runs.
  GRAPHQL_PARSE_FAILED: { status: 400, message: 'The document is not valid GraphQL', document: true },
  GRAPHQL_VALIDATION_FAILED: { status: 400, message: 'The document is not valid against the schema', document: true },
  INTROSPECTION_DISABLED: { status: 400, message: 'Introspection is disabled', document: true },
  DEPTH_LIMIT_EXCEEDED: { status: 400, message: 'The operation nests fields too deeply.', document: true },
  ALIAS_LIMIT_EXCEEDED: { status: 400, message: 'The operation has too many aliases.', document: true },
  TOKEN_LIMIT_EXCEEDED: { status: 400, message: 'The document is too long.', document: true },
  DIRECTIVE_LIMIT_EXCEEDED: { status: 400, message: 'The operation has too many directives.', document: true },
  COST_LIMIT_EXCEEDED: { status: 400, message: 'The operation is too expensive.', document: true },
  OPERATION_RESOLUTION_FAILURE: { status: 400, message: 'Could not determine what operation to execute.' },
  // Refused before GraphQL runs.
  BAD_REQUEST: { status: 400, message: 'The request is not a valid GraphQL request' },
  UNAUTHENTICATED: { status: 401, message: 'An API key is required' },
  CSRF_HEADER_REQUIRED: { status: 403, message: 'A CSRF prevention header is required' },
  NOT_FOUND: { status: 404, message: 'Not found' },
  METHOD_NOT_ALLOWED: { status: 405, message: 'This path answers GET and HEAD only' },
  NOT_ACCEPTABLE: { status: 406, message: 'This operation is answered in parts; send Accept: multipart/mixed or text/event-stream' },
  REQUEST_TIMEOUT: { status: 408, message: 'The request was not received in time' },
  PAYLOAD_TOO_LARGE: { status: 413, message: 'The request body is too large' },
  QUERY_TOO_LARGE: { status: 413, message: 'The query is too large' },
  VARIABLES_TOO_LARGE: { status: 413, message: 'The variables are too large' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'The request body is of a type the gateway does not read' },
  RATE_LIMITED: { status: 429, message: 'Too many requests' },
  TOO_MANY_CONNECTIONS: { status: 429, message: 'Too many WebSocket connections' },
  REQUEST_HEADER_FIELDS_TOO_LARGE: { status: 431, message: 'The request line and headers are too large' },
  SHUTTING_DOWN: { status: 503, message: 'The gateway is shutting down' },
  SERVER_BUSY: { status: 503, message: 'The gateway is decoding as many compressed request bodies as it may; retry shortly, or send the body plain' },
  PURGE_INCOMPLETE: { status: 503, message: 'Redis failed part of the purge, or the other replicas could not be told: copies may remain until their TTL; purge again' },
  // Persisted operations; APQ's messages are the protocol, which clients match word for word.
  PERSISTED_QUERY_NOT_FOUND: { status: 404, message: 'PersistedQueryNotFound' },
  PERSISTED_QUERY_MISMATCH: { status: 400, message: 'PersistedQueryMismatch' },
  PERSISTED_QUERY_NOT_IN_LIST: { status: 404, message: 'The operation is not in the persisted documents list.' },
  PERSISTED_QUERY_ONLY: { status: 400, message: 'Only persisted operations may run here; send the id or hash of a listed one.' },
  PERSISTED_QUERY_ID_REQUIRED: { status: 400, message: 'Only persisted operations may run here; send the id or hash of a listed one.' },
} as const satisfies Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof ERRORS;

/** A request refused with a registry code (admission/refusal.ts makes them). */
export interface Refusal {
  code: ErrorCode;
  /** The HTTP status (the registry's unless the check says otherwise). */
  status: number;
  message: string;
  /** Headers of the HTTP answer (`Retry-After`, `WWW-Authenticate`). */
  headers?: Record<string, string>;
}

/** Whether `code` is one of the registry's. */
export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && Object.hasOwn(ERRORS, code);
}

/** The code of any error: `extensions.code`, its original error's, its own registry `code`, else internal. */
export function codeOf(error: unknown): string {
  if (typeof error !== 'object' || error === null) return 'INTERNAL_SERVER_ERROR';
  const { extensions, code, originalError } = error as { extensions?: { code?: unknown }; code?: unknown; originalError?: unknown };
  if (typeof extensions?.code === 'string') return extensions.code;
  if (originalError !== undefined && originalError !== null) return codeOf(originalError);
  return isErrorCode(code) ? code : 'INTERNAL_SERVER_ERROR';
}
