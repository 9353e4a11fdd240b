/**
 * Cursors of the Relay connections: opaque to clients, yet checked. A cursor names a position
 * (an offset) in one list: the field, its filter arguments and its parent, digested into a tag.
 * A forged cursor, one of another list, or garbage is refused with `BAD_USER_INPUT` before it
 * can steer a read.
 *
 * What is signed is the page, not each edge: one HMAC covers the list's tag and the span of
 * offsets the page holds, and each of its cursors carries that signed head and its own offset,
 * which must lie in the span. A page of 500 edges costs one HMAC, not 500; a client can still
 * name only positions the gateway gave it a cursor for. Layout (base64url of 40 bytes):
 * version (1), tag (9), span start and end (4 + 4, end excluded), HMAC-SHA256 of those 18
 * bytes truncated to 18, offset (4). The head is 36 bytes, a whole number of base64 groups, so a
 * page encodes it once and each edge appends its offset's 6 characters.
 *
 * The HMAC key must be the same on every replica and after a restart, with nothing more to
 * configure: it is derived from the upstream client secret (`OAUTH_CLIENT_SECRET`), which every
 * replica shares, hashed with a constant label, so the key never reveals the secret. Rotating
 * that secret retires the cursors issued before (a client starts its list again), and so does a
 * new version of the format.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { badUserInput, echo } from './values.js';

/** The format's version (the first byte): another format is refused rather than misread. */
const VERSION = 2;
const KEY_LABEL = 'vending-graph/connection-cursors/v1\0';
const TAG_BYTES = 9;
const MAC_BYTES = 18;
/** Version, tag, start, end: what the MAC covers. */
const SIGNED_BYTES = 1 + TAG_BYTES + 8;
const HEAD_BYTES = SIGNED_BYTES + MAC_BYTES;
const CURSOR_BYTES = HEAD_BYTES + 4;
/** A cursor's length in characters: base64url of its bytes, unpadded. */
const CURSOR_LENGTH = Math.ceil((CURSOR_BYTES * 4) / 3);

/** Computes a MAC of `data` under `key` (HMAC-SHA256 unless a test counts the calls). */
export type Sign = (key: Buffer, data: Buffer) => Buffer;

export interface Cursors {
  /** A fingerprint of the key and the format (a hash: it tells nothing of the key or the secret). */
  id: string;
  /**
   * The cursors of one page of `list` (a list's identity: see `listOf`): offsets `start` to
   * `end` (excluded), signed together once; the function gives each offset's cursor.
   */
  page(list: string, start: number, end: number): (offset: number) => string;
  /** The cursor of `offset` in `list`, alone (a page of one). */
  encode(list: string, offset: number): string;
  /**
   * The offset `cursor` names, checked: signed by this key, within its page's span and, when
   * `list` is given, of that list (a nested field's rule runs before its parent is known: then
   * only the signature).
   */
  decode(name: string, cursor: string, list: string | undefined): number;
}

/** The identity of one list: the field, its filter arguments (as checked) and its parent's key. */
export function listOf(coordinate: string, filters: object, parent = ''): string {
  return JSON.stringify([coordinate, parent, Object.entries(filters).sort(([a], [b]) => (a < b ? -1 : 1))]);
}

export function createCursors(secret: string, sign: Sign = hmac): Cursors {
  const key = createHash('sha256').update(KEY_LABEL).update(secret).digest();
  // The last list's tag: a request's connections are often pages of one list, or few.
  let last = { list: '', tag: tagOf('') };
  const tagFor = (list: string) => (last.list === list ? last.tag : (last = { list, tag: tagOf(list) }).tag);
  const macOf = (signed: Buffer) => sign(key, signed).subarray(0, MAC_BYTES);
  const page = (list: string, start: number, end: number) => {
    const head = Buffer.alloc(HEAD_BYTES);
    head[0] = VERSION;
    tagFor(list).copy(head, 1);
    head.writeUInt32BE(start, 1 + TAG_BYTES);
    head.writeUInt32BE(end, 5 + TAG_BYTES);
    macOf(head.subarray(0, SIGNED_BYTES)).copy(head, SIGNED_BYTES);
    const prefix = head.toString('base64url');
    return (offset: number) => prefix + offsetChars(offset);
  };
  return {
    id: createHash('sha256').update(key).update(Buffer.of(VERSION)).digest().subarray(0, 9).toString('base64url'),
    page,
    encode: (list, offset) => page(list, offset, offset + 1)(offset),
    decode(name, cursor, list) {
      const bytes = cursor.length === CURSOR_LENGTH ? Buffer.from(cursor, 'base64url') : undefined;
      const offset = bytes === undefined ? undefined : offsetIn(bytes);
      if (bytes === undefined || offset === undefined || offset < bytes.readUInt32BE(1 + TAG_BYTES) || offset >= bytes.readUInt32BE(5 + TAG_BYTES)) {
        throw badUserInput(`${name} is not a cursor of this gateway, but got: ${echo(cursor)}`);
      }
      if (!timingSafeEqual(bytes.subarray(SIGNED_BYTES, HEAD_BYTES), macOf(bytes.subarray(0, SIGNED_BYTES)))) {
        throw badUserInput(`${name} is not a cursor this gateway issued (forged, or signed with another secret), but got: ${echo(cursor)}`);
      }
      if (list !== undefined && !tagFor(list).equals(bytes.subarray(1, 1 + TAG_BYTES))) {
        throw badUserInput(`${name} is a cursor of another list (another field, parent or filter arguments), but got: ${echo(cursor)}`);
      }
      return offset;
    },
  };
}

// Private: HMAC-SHA256.
function hmac(key: Buffer, data: Buffer): Buffer {
  return createHmac('sha256', key).update(data).digest();
}

// Private: a short digest of a list's identity (the HMAC, not the tag, is what cannot be forged).
function tagOf(list: string): Buffer {
  return createHash('sha256').update(list).digest().subarray(0, TAG_BYTES);
}

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

// Private: the base64url of an offset's 4 bytes (big-endian), as they follow the 36-byte head:
// what `Buffer.toString('base64url')` makes of them, without a buffer per edge.
function offsetChars(offset: number): string {
  const b = [offset >>> 24, (offset >>> 16) & 255, (offset >>> 8) & 255, offset & 255] as const;
  return BASE64URL[b[0] >> 2]! + BASE64URL[((b[0] & 3) << 4) | (b[1] >> 4)]! + BASE64URL[((b[1] & 15) << 2) | (b[2] >> 6)]!
    + BASE64URL[b[2] & 63]! + BASE64URL[b[3] >> 2]! + BASE64URL[(b[3] & 3) << 4]!;
}

/**
 * The offset a cursor names, unchecked: for the budget's estimate, which runs after the argument
 * checks refused every bad cursor (undefined: none, or not a cursor).
 */
export function offsetOf(cursor: unknown): number | undefined {
  return typeof cursor === 'string' && cursor.length === CURSOR_LENGTH ? offsetIn(Buffer.from(cursor, 'base64url')) : undefined;
}

// Private: the offset in a cursor's bytes, if they are of this format.
function offsetIn(bytes: Buffer): number | undefined {
  return bytes.length === CURSOR_BYTES && bytes[0] === VERSION ? bytes.readUInt32BE(HEAD_BYTES) : undefined;
}
