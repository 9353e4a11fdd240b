import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { createWriteBatch } from '../../../../src/doors/graphql/writes.js';

describe('the write batch', () => {
  it('writes a turn’s answers after the turn, together and in order, and a later turn’s in a flush of their own', async () => {
    const write = createWriteBatch();
    const written: string[] = [];
    for (const name of ['a', 'b', 'c']) write(() => written.push(name));
    expect(written).toEqual([]);
    await nextTurn();
    expect(written).toEqual(['a', 'b', 'c']);
    write(() => written.push('d'));
    expect(written).toEqual(['a', 'b', 'c']);
    await nextTurn();
    expect(written).toEqual(['a', 'b', 'c', 'd']);
  });

});
