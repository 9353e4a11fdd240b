/**
 * The response cache's tag index (response-cache/tag-index.ts): a tag one answer carries keeps its
 * key, a tag several carry a set, counted in `bytes` while it exists, so that the store keeps the
 * sets within its budget too; a purge finds every key through either.
 */
import { describe, expect, it } from 'vitest';
import { createTagIndex } from '../../../src/response-cache/tag-index.js';

describe('the response cache\'s tag index', () => {
  it('finds every key of a tag whether one answer or several carry it, and counts a set only while two or more do', () => {
    const index = createTagIndex();
    index.add('a', ['cities', 'city:SH']);
    expect([index.keysOf(['cities']), index.bytes]).toEqual([new Set(['a']), 0]);

    index.add('b', ['cities']);
    index.add('c', ['cities', 'city:BJ']);
    expect(index.keysOf(['cities'])).toEqual(new Set(['a', 'b', 'c']));
    expect(index.keysOf(['city:SH', 'city:BJ'])).toEqual(new Set(['a', 'c']));
    const oneSet = index.bytes;
    expect(oneSet).toBeGreaterThan(0);

    index.add('a', ['cities']); // the same answer again: no second place
    expect([index.keysOf(['cities']).size, index.bytes]).toEqual([3, oneSet]);

    index.remove('b', ['cities']);
    index.remove('a', ['cities', 'city:SH']);
    expect([index.keysOf(['cities', 'city:SH']), index.bytes]).toEqual([new Set(['c']), 0]);
    index.remove('c', ['cities', 'city:BJ']);
    expect([index.keysOf(['cities', 'city:BJ']).size, index.bytes]).toEqual([0, 0]);
  });
});
