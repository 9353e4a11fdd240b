/**
 * The connections' cursors (src/graph/arguments/cursors.ts): a cursor decodes to its offset only
 * under the key that signed it, for the list it names and within the page it was signed with (a
 * page is signed once, not once per edge); the key follows the upstream secret,
 * and so does the response cache's answer scope, so no replica serves cursors it would refuse.
 */
import { createHmac } from 'node:crypto';
import { GraphQLError } from 'graphql';
import { describe, expect, it } from 'vitest';
import { createCursors, listOf, offsetOf, type Sign } from '../../../../src/graph/arguments/cursors.js';
import type { Window } from '../../../../src/graph/arguments/window.js';
import { sliceConnection } from '../../../../src/graph/connections/build.js';
import { answerNamespace } from '../../../../src/response-cache/namespace.js';

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

  it('of one page are signed with one MAC, however many edges it has, and each still decodes to its offset', () => {
    let macs = 0;
    const counting: Sign = (key, data) => {
      macs += 1;
      return createHmac('sha256', key).update(data).digest();
    };
    const cursors = createCursors('secret', counting);
    const items = Array.from({ length: 1200 }, (_, i) => i);
    const window: Window = { first: 500, after: 99, last: undefined, before: undefined };
    const page = sliceConnection(items, window, SITES, cursors, (node) => ({ node }));
    expect(page.edges).toHaveLength(500);
    expect(macs).toBe(1);
    // Checking a cursor costs one MAC too, and it holds under the plain HMAC.
    const plain = createCursors('secret');
    page.edges.forEach((edge, i) => expect(plain.decode('after', edge.cursor, SITES)).toBe(100 + i));
    expect(cursors.decode('after', page.edges[7]!.cursor, SITES)).toBe(107);
    expect(macs).toBe(2);
  });

  it('name only offsets within their signed page: one moved out of it, or a page widened, is refused', () => {
    const cursors = createCursors('secret');
    const at = cursors.page(SITES, 10, 20);
    const bytes = Buffer.from(at(15), 'base64url');
    const changed = (edit: (copy: Buffer) => void) => {
      const copy = Buffer.from(bytes);
      edit(copy);
      return copy.toString('base64url');
    };
    expect(cursors.decode('after', changed(() => {}), SITES)).toBe(15);
    expect(cursors.decode('after', changed((copy) => copy.writeUInt32BE(19, 36)), SITES)).toBe(19);
    for (const [what, edit] of [
      ['offset past the page', (copy: Buffer) => copy.writeUInt32BE(20, 36)],
      ['offset before the page', (copy: Buffer) => copy.writeUInt32BE(9, 36)],
      ['page widened', (copy: Buffer) => copy.writeUInt32BE(0, 10)],
      ['page lengthened', (copy: Buffer) => copy.writeUInt32BE(1000, 14)],
      ['tag changed', (copy: Buffer) => void (copy[1]! ^= 1)],
      ['another version', (copy: Buffer) => void (copy[0] = 1)],
    ] as const) {
      expect(codeOf(() => cursors.decode('after', changed(edit), SITES)), what).toBe('BAD_USER_INPUT');
    }
  });

  it('give each offset the characters a buffer would encode it as', () => {
    const cursors = createCursors('secret');
    for (const offset of [0, 1, 63, 64, 255, 256, 4095, 65_535, 65_536, 2 ** 24 + 5, 2 ** 31, 2 ** 32 - 2]) {
      const cursor = cursors.encode(SITES, offset);
      expect(Buffer.from(cursor, 'base64url').toString('base64url')).toBe(cursor);
      expect(cursors.decode('before', cursor, SITES)).toBe(offset);
      expect(offsetOf(cursor)).toBe(offset);
    }
  });

  it('name the same list whatever order the filters come in', () => {
    expect(listOf('Query.sitesNearConnection', { lat: 1, lng: 2 })).toBe(listOf('Query.sitesNearConnection', { lng: 2, lat: 1 }));
  });

  it('put their key\'s fingerprint, and nothing of the secret, in the scope of the answers replicas share', () => {
    const settings = { maxPageSize: 100, maxItemsPerOperation: 1, maxUpstreamCallsPerOperation: 1, siteTimeZone: 'Asia/Shanghai' };
    const one = answerNamespace('type Query', { ...settings, cursorKey: createCursors('secret').id });
    expect(answerNamespace('type Query', { ...settings, cursorKey: createCursors('secret').id })).toBe(one);
    expect(answerNamespace('type Query', { ...settings, cursorKey: createCursors('rotated').id })).not.toBe(one);
    expect(one).not.toContain('secret');
  });
});
