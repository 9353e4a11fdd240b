/**
 * A shared answer in Redis: format 0x02, storedAt and expiresAt (float64 BE, wall ms), ETag and
 * content type (1 length byte each), tags (2 length bytes), then the body as sent (no base64: a
 * copy and a third more bytes per hit). The ETag is the body's digest, so a cut or foreign value
 * decodes to `undefined`: a miss.
 */
import { createHash } from 'node:crypto';

export interface StoredAnswerBytes {
  body: Uint8Array;
  contentType: string;
  etag: string;
  /** Wall-clock store time, ms since the epoch. */
  storedAt: number;
  /** Wall-clock end of freshness, ms since the epoch. */
  expiresAt: number;
  /** What the answer was built from (request/tags.ts). */
  tags?: readonly string[];
}

const FORMAT = 0x02;
/** Joined tags longer than this are not shared, so no answer costs the index many calls per write. */
const MAX_TAGS_BYTES = 4096;
const TIMES_BYTES = 16;
const MAX_FIELD_BYTES = 255;
/** The media types the response cache stores, with an optional charset. */
const CONTENT_TYPE = /^application\/(?:graphql-response\+)?json(?:; ?charset=utf-8)?$/i;
const ETAG = /^"[A-Za-z0-9_-]{1,64}"$/;

/** The strong ETag of an answer: its SHA-1, base64url, quoted. */
export function answerEtag(body: Uint8Array): string {
  return `"${createHash('sha1').update(body).digest('base64url')}"`;
}

/** The bytes to store, or `undefined` for an answer this format cannot carry (not JSON, a foreign ETag). */
export function encodeAnswer(answer: StoredAnswerBytes): Buffer | undefined {
  const { etag, contentType } = answer;
  const tags = (answer.tags ?? []).join(' ');
  if (!ETAG.test(etag) || !CONTENT_TYPE.test(contentType) || tags.length > MAX_TAGS_BYTES) return undefined;
  const header = Buffer.allocUnsafe(1 + TIMES_BYTES + 1 + etag.length + 1 + contentType.length + 2 + tags.length);
  let at = header.writeUInt8(FORMAT, 0);
  at = header.writeDoubleBE(answer.storedAt, at);
  at = header.writeDoubleBE(answer.expiresAt, at);
  at = header.writeUInt8(etag.length, at);
  at += header.write(etag, at, 'latin1');
  at = header.writeUInt8(contentType.length, at);
  at += header.write(contentType, at, 'latin1');
  at = header.writeUInt16BE(tags.length, at);
  header.write(tags, at, 'latin1');
  return Buffer.concat([header, answer.body]);
}

/** The answer in `bytes`, or `undefined` when they are not an answer this version wrote, whole. */
export function decodeAnswer(bytes: Buffer): StoredAnswerBytes | undefined {
  if (bytes.length < 1 + TIMES_BYTES + 2 || bytes[0] !== FORMAT) return undefined;
  const storedAt = bytes.readDoubleBE(1);
  const expiresAt = bytes.readDoubleBE(1 + TIMES_BYTES / 2);
  if (!isTime(storedAt) || !isTime(expiresAt)) return undefined;
  const etag = field(bytes, 1 + TIMES_BYTES);
  const contentType = etag && field(bytes, etag.end);
  if (!etag || !contentType || !ETAG.test(etag.text) || !CONTENT_TYPE.test(contentType.text)) return undefined;
  const tags = tagsField(bytes, contentType.end);
  if (tags === undefined) return undefined;
  const body = bytes.subarray(tags.end);
  if (answerEtag(body) !== etag.text) return undefined;
  // A copy: a view would keep the larger socket buffer alive.
  return { body: new Uint8Array(body), contentType: contentType.text, etag: etag.text, storedAt, expiresAt, tags: tags.tags };
}

// Private: a length-prefixed ASCII field at `offset`, and where the next one starts.
function field(bytes: Buffer, offset: number): { text: string; end: number } | undefined {
  if (offset >= bytes.length) return undefined;
  const length = bytes[offset]!;
  const end = offset + 1 + length;
  if (length === 0 || length > MAX_FIELD_BYTES || end > bytes.length) return undefined;
  return { text: bytes.toString('latin1', offset + 1, end), end };
}

// Private: the tags at `offset`, and where the body starts.
function tagsField(bytes: Buffer, offset: number): { tags: string[]; end: number } | undefined {
  if (offset + 2 > bytes.length) return undefined;
  const end = offset + 2 + bytes.readUInt16BE(offset);
  if (end > bytes.length) return undefined;
  const text = bytes.toString('latin1', offset + 2, end);
  return { tags: text === '' ? [] : text.split(' '), end };
}

function isTime(value: number): boolean {
  return Number.isFinite(value) && value >= 0;
}
