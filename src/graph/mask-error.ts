/**
 * What clients see of a failure: expected errors keep their registry code and message (the
 * upstream's own `msg` may echo what it was sent, so it stays in the log); anything else is
 * masked by yoga's default, never with a stack.
 */
import { maskError as yogaMaskError } from 'graphql-yoga';
import { GraphQLError } from 'graphql';
import { coded } from '../base/graph-errors.js';
import { ERRORS } from '../base/errors.js';
import { UpstreamError } from '../upstream/errors.js';

/** `error` as a client sees it; `message` (default the registry's `INTERNAL_SERVER_ERROR`) replaces an unexpected one's. */
export function maskError(error: unknown, message: string = ERRORS.INTERNAL_SERVER_ERROR.message): Error {
  const original = error instanceof GraphQLError ? error.originalError : error;
  if (!(original instanceof UpstreamError)) return yogaMaskError(error, message, false);
  const located = error instanceof GraphQLError ? error : undefined;
  return coded(original.code, undefined, {
    nodes: located?.nodes,
    source: located?.source,
    positions: located?.positions,
    path: located?.path,
    extensions: original.upstreamCode === undefined ? {} : { upstreamCode: original.upstreamCode },
  });
}
