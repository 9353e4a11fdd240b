/**
 * GraphQL errors of the registry (errors.ts): `coded('RATE_LIMITED')` is the one way to make an
 * expected error, with its code and, for a refusal before GraphQL runs, its HTTP status.
 */
import { GraphQLError, type ASTNode } from 'graphql';
import { ERRORS, type ErrorCode } from './errors.js';

export interface CodedOptions {
  /** More `extensions` beside the code (e.g. `estimate`, `items`). */
  extensions?: Record<string, unknown>;
  /** Where in the document the error is. */
  nodes?: ASTNode | readonly ASTNode[];
  /** Headers of the HTTP answer, for a refusal before GraphQL runs (e.g. `Retry-After`). */
  headers?: Record<string, string>;
}

/** The GraphQL error for `code`, with `message` or the code's default one. */
export function coded(code: ErrorCode, message: string = ERRORS[code].message, options: CodedOptions = {}): GraphQLError {
  const { status } = ERRORS[code];
  const http = status === 200 && options.headers === undefined ? undefined : { status, ...(options.headers && { headers: options.headers }) };
  return new GraphQLError(message, { nodes: options.nodes, extensions: { code, ...options.extensions, ...(http && { http }) } });
}
