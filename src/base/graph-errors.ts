/**
 * GraphQL errors of the registry (errors.ts): `coded('RATE_LIMITED')` is the one way to make an
 * expected error, with its code and, for a refusal before GraphQL runs, its HTTP status.
 */
import { GraphQLError, type GraphQLErrorOptions } from 'graphql';
import { ERRORS, type ErrorCode } from './errors.js';

export interface CodedOptions extends Pick<GraphQLErrorOptions, 'nodes' | 'source' | 'positions' | 'path' | 'originalError'> {
  /** More `extensions` beside the code (e.g. `estimate`, `items`). */
  extensions?: Record<string, unknown>;
  /** Headers of the HTTP answer, for a refusal before GraphQL runs (e.g. `Retry-After`). */
  headers?: Record<string, string>;
  /**
   * The HTTP status, where this use of the code answers with another than the registry's: 200
   * for a request's own deadline inside a partial answer (`REQUEST_TIMEOUT`) or a site a live
   * event does not find (`NOT_FOUND`); 400 for variables of the wrong type (`BAD_USER_INPUT`).
   */
  status?: number;
}

/** The GraphQL error for `code`, with `message` or the code's default one. */
export function coded(code: ErrorCode, message: string = ERRORS[code].message, options: CodedOptions = {}): GraphQLError {
  const { extensions, headers, status: given, ...located } = options;
  const spec: { status: number; document?: true } = ERRORS[code];
  // A document error's status is GraphQL over HTTP's to set (errors.ts): none here.
  const status = given ?? (spec.document ? 200 : spec.status);
  const http = status === 200 && headers === undefined ? undefined : { ...(status !== 200 && { status }), ...(headers && { headers }) };
  return new GraphQLError(message, { ...located, extensions: { code, ...extensions, ...(http && { http }) } });
}
