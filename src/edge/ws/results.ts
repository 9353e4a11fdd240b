/**
 * What the WebSocket transport sends of a result: errors as yoga sends them over HTTP (masked,
 * coded), without what only HTTP has (`extensions.http`), and a stream that fails ended by a
 * masked error event rather than graphql-ws's raw message.
 */
import { GraphQLError, type ExecutionResult, type GraphQLFormattedError } from 'graphql';
import { maskError } from '../../graph/mask-error.js';

/** An error as sent: without yoga's `extensions.http` (a status no WebSocket message has). */
export function formatted(error: GraphQLError): GraphQLFormattedError {
  const json = error.toJSON();
  if (json.extensions?.http === undefined) return json;
  const { http: _http, ...extensions } = json.extensions;
  return { ...json, extensions };
}

/** A coded GraphQL error as it is; anything else masked as yoga masks it (mask-error.ts). */
export function masked(error: unknown): GraphQLError {
  return error instanceof GraphQLError && typeof error.extensions.code === 'string' ? error : (maskError(error, 'Unexpected error.') as GraphQLError);
}

/**
 * A subscription's events, with an error thrown out of its stream sent as a last, masked event.
 * Not an async generator function: a generator's `return()` waits behind its pending `next()`,
 * that is until the next event, so a client's `complete` or disconnect would not reach the source
 * (and release its poll) until then.
 */
export function endingWithMaskedError(source: AsyncIterable<ExecutionResult>): AsyncIterableIterator<ExecutionResult> {
  const events = source[Symbol.asyncIterator]();
  let ended = false;
  const end = (): IteratorResult<ExecutionResult> => {
    ended = true;
    return { done: true, value: undefined };
  };
  return {
    async next() {
      if (ended) return end();
      try {
        return await events.next();
      } catch (error) {
        ended = true;
        return { done: false, value: { errors: [masked(error)] } };
      }
    },
    async return() {
      end();
      await events.return?.();
      return end();
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}
