/**
 * What clients see of a failure. Expected errors are `GraphQLError`s with a stable
 * `extensions.code`: `BAD_USER_INPUT` from argument checks, and the upstream layer's codes
 * (`UPSTREAM_ERROR` with `upstreamCode`, `UPSTREAM_UNAVAILABLE`, `UPSTREAM_AUTH_FAILED`), each
 * with the registry's message (base/errors.ts): the upstream's own `msg` is the upstream's to tell
 * the gateway, not the gateway's clients (it may echo what it was sent), so it stays in the log,
 * redacted. Anything else is masked by yoga's default, never with a stack, whatever NODE_ENV says.
 */
import { maskError as yogaMaskError } from 'graphql-yoga';
import { GraphQLError } from 'graphql';
import { coded } from '../base/graph-errors.js';
import { UpstreamError } from '../upstream/errors.js';

export function maskError(error: unknown, message: string): Error {
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
