import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { createTurnQueue } from '../../../../src/doors/graphql/turns.js';

describe('the turn queue', () => {
  it('starts its jobs in the order they came, one per turn of the event loop', async () => {
    const startInTurn = createTurnQueue();
    const started: string[] = [];
    for (const name of ['a', 'b', 'c']) startInTurn(() => started.push(name));
    expect(started).toEqual([]);
    await nextTurn();
    expect(started).toEqual(['a']);
    // A job that came while others wait goes behind them, even if enqueued from a running job.
    startInTurn(() => started.push('d'));
    await nextTurn();
    expect(started).toEqual(['a', 'b']);
    await nextTurn();
    await nextTurn();
    expect(started).toEqual(['a', 'b', 'c', 'd']);
  });

});
