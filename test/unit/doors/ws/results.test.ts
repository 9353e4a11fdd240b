import { GraphQLError, type ExecutionResult } from 'graphql';
import { describe, expect, it } from 'vitest';
import { endingWithMaskedError, formatted } from '../../../../src/doors/ws/results.js';

describe('what the WebSocket transport sends of a result', () => {
  it('ends a stream that throws with one masked error event, never the raw message', async () => {
    async function* failing(): AsyncGenerator<ExecutionResult> {
      yield { data: { n: 1 } };
      throw new Error('connect ECONNREFUSED 10.0.0.7:6379');
    }
    const events: ExecutionResult[] = [];
    for await (const event of endingWithMaskedError(failing())) events.push(event);
    expect(events).toHaveLength(2);
    expect(events[1]!.errors?.map((error) => error.message)).toEqual(['Unexpected error.']);
  });

  it('passes a coded GraphQL error thrown by the stream through as it is', async () => {
    const failing: AsyncIterable<ExecutionResult> = {
      [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(new GraphQLError('No site S9', { extensions: { code: 'NOT_FOUND' } })) }),
    };
    const { value: event } = await endingWithMaskedError(failing).next();
    expect((event as ExecutionResult).errors?.map((error) => error.extensions.code)).toEqual(['NOT_FOUND']);
  });

  it('hands return() to the source at once, while a next() is still waiting for an event', async () => {
    let returned = false;
    const waiting: AsyncIterableIterator<ExecutionResult> = {
      next: () => new Promise(() => {}),
      return: async () => {
        returned = true;
        return { done: true, value: undefined };
      },
      [Symbol.asyncIterator]() {
        return this;
      },
    };
    const events = endingWithMaskedError(waiting);
    void events.next();
    await events.return!();
    expect(returned).toBe(true);
  });

  it('sends no extensions.http: a WebSocket message has no status', () => {
    const error = new GraphQLError('Cannot query field "nope"', { extensions: { code: 'GRAPHQL_VALIDATION_FAILED', http: { status: 400 } } });
    expect(formatted(error)).toEqual({ message: 'Cannot query field "nope"', extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } });
  });
});
