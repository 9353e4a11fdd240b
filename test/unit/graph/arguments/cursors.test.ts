/**
 * The connections' cursors (src/graph/arguments/cursors.ts): a cursor decodes to its offset only
 * under the key that signed it and for the list it names; the key follows the upstream secret,
 * and so does the response cache's answer scope, so no replica serves cursors it would refuse.
 */
import { GraphQLError } from 'graphql';
import { describe, expect, it } from 'vitest';
import { createCursors, listOf, offsetOf } from '../../../../src/graph/arguments/cursors.js';
import { answerScope } from '../../../../src/response-cache/scope.js';

const SITES = listOf('Query.sitesConnection', { cityCode: 'SH', enabledOnly: false });
const codeOf = (act: () => unknown) => {
  try {
    act();
  } catch (error) {
    return error instanceof GraphQLError ? error.extensions.code : error;
  }
  return 'accepted';
};

describe('connection cursors', () => {
  it('decode to the offset they were made for, under the same secret in another process', () => {
    const cursor = createCursors('secret').encode(SITES, 41);
    expect(createCursors('secret').decode('after', cursor, SITES)).toBe(41);
    expect(offsetOf(cursor)).toBe(41);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it('are refused under another secret, for another list, changed, or when they are no cursor at all', () => {
    const cursors = createCursors('secret');
    const cursor = cursors.encode(SITES, 3);
    const [version, , tag, mac] = Buffer.from(cursor, 'base64url').toString().split('.');
    const moved = Buffer.from([version, '4', tag, mac].join('.')).toString('base64url');
    expect(codeOf(() => createCursors('other').decode('after', cursor, SITES))).toBe('BAD_USER_INPUT');
    expect(codeOf(() => cursors.decode('after', cursor, listOf('Query.sitesConnection', { cityCode: 'BJ', enabledOnly: false })))).toBe('BAD_USER_INPUT');
    expect(codeOf(() => cursors.decode('after', cursor, listOf('City.sitesConnection', {}, 'SH')))).toBe('BAD_USER_INPUT');
    expect(codeOf(() => cursors.decode('after', moved, SITES))).toBe('BAD_USER_INPUT');
    for (const garbage of ['', 'x', '%%%', 'a'.repeat(500), Buffer.from('c1.-1.x.y').toString('base64url')]) {
      expect(codeOf(() => cursors.decode('after', garbage, SITES)), garbage).toBe('BAD_USER_INPUT');
    }
    // Before a nested field's parent is known, the signature alone is checked.
    expect(cursors.decode('after', cursor, undefined)).toBe(3);
  });

  it('name the same list whatever order the filters come in', () => {
    expect(listOf('Query.sitesNearConnection', { lat: 1, lng: 2 })).toBe(listOf('Query.sitesNearConnection', { lng: 2, lat: 1 }));
  });

  it('put their key\'s fingerprint, and nothing of the secret, in the scope of the answers replicas share', () => {
    const settings = { maxPageSize: 100, maxItemsPerOperation: 1, maxUpstreamCallsPerOperation: 1, siteTimeZone: 'Asia/Shanghai' };
    const one = answerScope('type Query', { ...settings, cursorKey: createCursors('secret').id });
    expect(answerScope('type Query', { ...settings, cursorKey: createCursors('secret').id })).toBe(one);
    expect(answerScope('type Query', { ...settings, cursorKey: createCursors('rotated').id })).not.toBe(one);
    expect(one).not.toContain('secret');
  });
});
