/**
 * Cursors of the Relay connections: opaque, yet checked. A cursor names an offset in one list
 * (field, filter arguments, parent); a forged one, one of another list or garbage is refused with
 * `BAD_USER_INPUT` before it can steer a read. One HMAC signs a page (the list's tag and its span
 * of offsets), so a page costs one HMAC, not one per edge. Layout, base64url of 40 bytes: version
 * (1), tag (9), span start and end (4 + 4), MAC (18), offset (4); the 36-byte head is whole base64
 * groups, so each edge appends 6 characters. The key is derived from the upstream client secret,
 * the same on every replica; rotating it retires issued cursors.
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

/** Computes a MAC of `data` under `key` (HMAC-SHA256 unless a test counts calls). */
export type Sign = (key: Buffer, data: Buffer) => Buffer;

export interface Cursors {
  /** A fingerprint of the key and the format (a hash: it tells nothing of the key or the secret). */
  id: string;
  /** The cursors of one page of `list` (see `listOf`): offsets `start` to `end` (excluded), signed once. */
  page(list: string, start: number, end: number): (offset: number) => string;
  /** The cursor of `offset` in `list`, alone (a page of one). */
  encode(list: string, offset: number): string;
  /** The offset `cursor` names, checked: signed, within its span and, when `list` is given, of that list. */
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

// Private: the base64url of an offset's 4 bytes after the 36-byte head, without a buffer per edge.
function offsetChars(offset: number): string {
  const b = [offset >>> 24, (offset >>> 16) & 255, (offset >>> 8) & 255, offset & 255] as const;
  return BASE64URL[b[0] >> 2]! + BASE64URL[((b[0] & 3) << 4) | (b[1] >> 4)]! + BASE64URL[((b[1] & 15) << 2) | (b[2] >> 6)]!
    + BASE64URL[b[2] & 63]! + BASE64URL[b[3] >> 2]! + BASE64URL[(b[3] & 3) << 4]!;
}

/** The offset a cursor names, unchecked (the argument checks ran first), or undefined. */
export function offsetOf(cursor: unknown): number | undefined {
  return typeof cursor === 'string' && cursor.length === CURSOR_LENGTH ? offsetIn(Buffer.from(cursor, 'base64url')) : undefined;
}

// Private: the offset in a cursor's bytes, if they are of this format.
function offsetIn(bytes: Buffer): number | undefined {
  return bytes.length === CURSOR_BYTES && bytes[0] === VERSION ? bytes.readUInt32BE(HEAD_BYTES) : undefined;
}
