/**
 * Where a window lies in a list (src/graph/connections/build.ts), by the Relay specification's
 * algorithm: `after` and `before` cut the list first, then `first` keeps the head of what is
 * left or `last` its tail; and the page info says what lies beyond the page either way.
 */
import { describe, expect, it } from 'vitest';
import { createCursors } from '../../../../src/graph/arguments/cursors.js';
import type { Window } from '../../../../src/graph/arguments/window.js';
import { sliceConnection, spanOf } from '../../../../src/graph/connections/build.js';

const window = (w: Partial<Window>): Window => ({ first: undefined, last: undefined, after: undefined, before: undefined, ...w });

describe('a connection window', () => {
  it('cuts by after and before, then takes first from the head or last from the tail', () => {
    expect(spanOf(window({ first: 3 }), 10)).toEqual({ start: 0, end: 3 });
    expect(spanOf(window({ first: 3, after: 2 }), 10)).toEqual({ start: 3, end: 6 });
    expect(spanOf(window({ first: 5, after: 2, before: 5 }), 10)).toEqual({ start: 3, end: 5 });
    expect(spanOf(window({ last: 3 }), 10)).toEqual({ start: 7, end: 10 });
    expect(spanOf(window({ last: 3, before: 2 }), 10)).toEqual({ start: 0, end: 2 });
    expect(spanOf(window({ last: 4, after: 5, before: 8 }), 10)).toEqual({ start: 6, end: 8 });
  });

  it('is empty past the end, and for first 0', () => {
    expect(spanOf(window({ first: 3, after: 12 }), 10)).toEqual({ start: 10, end: 10 });
    expect(spanOf(window({ first: 0 }), 10)).toEqual({ start: 0, end: 0 });
    expect(spanOf(window({ first: 3, after: 4, before: 2 }), 10)).toEqual({ start: 5, end: 5 });
  });

  it('says whether items lie before and after the page, and gives its first and last cursors', () => {
    const cursors = createCursors('secret');
    const page = sliceConnection(['a', 'b', 'c', 'd'], window({ first: 2, after: 0 }), 'list', cursors, (node) => ({ node }));
    expect(page.edges.map((edge) => [edge.node, cursors.decode('after', edge.cursor, 'list')])).toEqual([['b', 1], ['c', 2]]);
    expect(page.pageInfo).toEqual({ hasPreviousPage: true, hasNextPage: true, startCursor: page.edges[0]!.cursor, endCursor: page.edges[1]!.cursor });
    expect(page.totalCount).toBe(4);
    const empty = sliceConnection(['a'], window({ first: 0 }), 'list', cursors, (node) => ({ node }));
    expect(empty.pageInfo).toEqual({ hasPreviousPage: false, hasNextPage: true, startCursor: null, endCursor: null });
  });
});
