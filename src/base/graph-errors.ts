/** `coded('RATE_LIMITED')`: the one way to make an expected GraphQL error, from the registry. */
import { GraphQLError, type GraphQLErrorOptions } from 'graphql';
import { ERRORS, type ErrorCode } from './errors.js';

export interface CodedOptions extends Pick<GraphQLErrorOptions, 'nodes' | 'source' | 'positions' | 'path' | 'originalError'> {
  /** More `extensions` beside the code (e.g. `estimate`, `items`). */
  extensions?: Record<string, unknown>;
  /** Headers of the HTTP answer, for a refusal before GraphQL runs (e.g. `Retry-After`). */
  headers?: Record<string, string>;
  /** The HTTP status, where this use of the code answers with another than the registry's. */
  status?: number;
  /** The status only for a client accepting application/graphql-response+json (GraphQL over HTTP's rule); JSON clients get 200. */
  spec?: true;
}

/** The GraphQL error for `code`, with `message` or the code's default one. */
export function coded(code: ErrorCode, message: string = ERRORS[code].message, options: CodedOptions = {}): GraphQLError {
  const { extensions, headers, status: given, spec: only, ...located } = options;
  const spec: { status: number; document?: true } = ERRORS[code];
  const status = given ?? (spec.document ? 200 : spec.status);
  const http = status === 200 && headers === undefined ? undefined : { ...(only && { spec: only }), ...(status !== 200 && { status }), ...(headers && { headers }) };
  return new GraphQLError(message, { ...located, extensions: { code, ...extensions, ...(http && { http }) } });
}
