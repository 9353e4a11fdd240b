/** What the WebSocket door sends of a result: errors masked and coded as over HTTP, minus `extensions.http`. */
import { GraphQLError, type ExecutionResult, type GraphQLFormattedError } from 'graphql';
import { maskError } from '../../graph/mask-error.js';

export function formatted(error: GraphQLError): GraphQLFormattedError {
  const json = error.toJSON();
  if (json.extensions?.http === undefined) return json;
  const { http: _http, ...extensions } = json.extensions;
  return { ...json, extensions };
}

/** A coded GraphQL error as it is; anything else masked as yoga masks it (mask-error.ts). */
export function masked(error: unknown): GraphQLError {
  return error instanceof GraphQLError && typeof error.extensions.code === 'string' ? error : (maskError(error) as GraphQLError);
}

/**
 * A subscription's events, a stream error sent as a last masked event. Not an async generator:
 * its `return()` would wait behind a pending `next()`, holding the source until its next event.
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
