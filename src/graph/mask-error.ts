/**
 * What clients see of a failure. Expected errors are `GraphQLError`s with a stable
 * `extensions.code`: `BAD_USER_INPUT` from argument checks, and the upstream layer's codes
 * (`UPSTREAM_ERROR` with `upstreamCode`, `UPSTREAM_UNAVAILABLE`, `UPSTREAM_AUTH_FAILED`), each
 * with a fixed message: the upstream's own `msg` is the upstream's to tell the gateway, not the
 * gateway's clients (it may echo what it was sent), so it stays in the log, redacted.
 * Anything else is masked by yoga's default, never with a stack, whatever NODE_ENV says.
 */
import { createGraphQLError, maskError as yogaMaskError } from 'graphql-yoga';
import { GraphQLError } from 'graphql';
import { UpstreamError } from '../upstream/errors.js';

const PUBLIC_MESSAGES: Record<UpstreamError['code'], string> = {
  UPSTREAM_ERROR: 'The upstream answered with an error',
  UPSTREAM_UNAVAILABLE: 'The upstream is unavailable',
  UPSTREAM_AUTH_FAILED: 'The gateway could not authenticate with the upstream',
};

export function maskError(error: unknown, message: string): Error {
  const original = error instanceof GraphQLError ? error.originalError : error;
  if (!(original instanceof UpstreamError)) return yogaMaskError(error, message, false);
  const located = error instanceof GraphQLError ? error : undefined;
  return createGraphQLError(PUBLIC_MESSAGES[original.code], {
    nodes: located?.nodes,
    source: located?.source,
    positions: located?.positions,
    path: located?.path,
    extensions: {
      code: original.code,
      ...(original.upstreamCode === undefined ? {} : { upstreamCode: original.upstreamCode }),
    },
  });
}
