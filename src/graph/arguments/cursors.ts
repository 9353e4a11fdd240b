/**
 * Cursors of the Relay connections: opaque to clients, yet checked. A cursor names a position
 * (an offset) in one list: the field, its filter arguments and its parent, digested into a tag,
 * signed with an HMAC. A forged cursor, one of another list, or garbage is refused with
 * `BAD_USER_INPUT` before it can steer a read.
 *
 * The HMAC key must be the same on every replica and after a restart, with nothing more to
 * configure: it is derived from the upstream client secret (`OAUTH_CLIENT_SECRET`), which every
 * replica shares, hashed with a constant label, so the key never reveals the secret. Rotating
 * that secret retires the cursors issued before (a client starts its list again).
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { badUserInput, echo } from './values.js';

/** Cursors longer than this are not ours (ours are about 60 characters). */
const MAX_CURSOR_LENGTH = 200;
/** The format's version: another format is refused rather than misread. */
const VERSION = 'c1';
const KEY_LABEL = 'vending-graph/connection-cursors/v1\0';

export interface Cursors {
  /** A fingerprint of the key (a hash of it: it tells nothing of the key or the secret). */
  id: string;
  /** The cursor of `offset` in `list` (a list's identity: see `listOf`). */
  encode(list: string, offset: number): string;
  /**
   * The offset `cursor` names, checked: signed by this key and, when `list` is given, of that
   * list (a nested field's rule runs before its parent is known: then only the signature).
   */
  decode(name: string, cursor: string, list: string | undefined): number;
}

/** The identity of one list: the field, its filter arguments (as checked) and its parent's key. */
export function listOf(coordinate: string, filters: object, parent = ''): string {
  return JSON.stringify([coordinate, parent, Object.entries(filters).sort(([a], [b]) => (a < b ? -1 : 1))]);
}

export function createCursors(secret: string): Cursors {
  const key = createHash('sha256').update(KEY_LABEL).update(secret).digest();
  const mac = (payload: string) => createHmac('sha256', key).update(payload).digest().subarray(0, 16);
  // The last list's tag: a connection encodes one cursor per edge, all of one list.
  let last = { list: '', tag: tagOf('') };
  const tagFor = (list: string) => (last.list === list ? last.tag : (last = { list, tag: tagOf(list) }).tag);
  return {
    id: createHash('sha256').update(key).digest().subarray(0, 9).toString('base64url'),
    encode(list, offset) {
      const payload = `${VERSION}.${offset}.${tagFor(list)}`;
      return Buffer.from(`${payload}.${mac(payload).toString('base64url')}`).toString('base64url');
    },
    decode(name, cursor, list) {
      const parts = cursor.length <= MAX_CURSOR_LENGTH ? Buffer.from(cursor, 'base64url').toString().split('.') : [];
      const [version, offset, tag, signature] = parts;
      if (parts.length !== 4 || version !== VERSION || !/^\d{1,9}$/.test(offset!) || tag === '') {
        throw badUserInput(`${name} is not a cursor of this gateway, but got: ${echo(cursor)}`);
      }
      const expected = mac(`${version}.${offset}.${tag}`);
      const given = Buffer.from(signature!, 'base64url');
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        throw badUserInput(`${name} is not a cursor this gateway issued (forged, or signed with another secret), but got: ${echo(cursor)}`);
      }
      if (list !== undefined && tag !== tagFor(list)) {
        throw badUserInput(`${name} is a cursor of another list (another field, parent or filter arguments), but got: ${echo(cursor)}`);
      }
      return Number(offset);
    },
  };
}

// Private: a short digest of a list's identity (the HMAC, not the tag, is what cannot be forged).
function tagOf(list: string): string {
  return createHash('sha256').update(list).digest().subarray(0, 9).toString('base64url');
}

/**
 * The offset a cursor names, unchecked: for the budget's estimate, which runs after the argument
 * checks refused every bad cursor (undefined: none, or not a cursor).
 */
export function offsetOf(cursor: unknown): number | undefined {
  if (typeof cursor !== 'string' || cursor.length > MAX_CURSOR_LENGTH) return undefined;
  const offset = Buffer.from(cursor, 'base64url').toString().split('.')[1];
  return offset !== undefined && /^\d{1,9}$/.test(offset) ? Number(offset) : undefined;
}
