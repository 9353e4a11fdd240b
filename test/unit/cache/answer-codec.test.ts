/**
 * The shared answer's format (cache/answer-codec.ts) carries the answer's tags, so that a replica
 * keeping another's answer can send them and purge it. The format before them (0x01) is another
 * release's, under other keys (response-cache/namespace.ts): met anyway, it is a miss.
 */
import { describe, expect, it } from 'vitest';
import { answerEtag, decodeAnswer, encodeAnswer } from '../../../src/cache/answer-codec.js';

const body = new TextEncoder().encode('{"data":{"site":{"code":"S000001"}}}');
const answer = { body, contentType: 'application/json; charset=utf-8', etag: answerEtag(body), storedAt: 1000, expiresAt: 31_000 };

describe('the shared answer format', () => {
  it('keeps the tags with the answer', () => {
    const bytes = encodeAnswer({ ...answer, tags: ['city:SH', 'site:S000001'] })!;
    expect(bytes[0]).toBe(0x02);
    expect(decodeAnswer(bytes)).toEqual({ ...answer, tags: ['city:SH', 'site:S000001'] });
    expect(decodeAnswer(encodeAnswer(answer)!)).toEqual({ ...answer, tags: [] });
  });

  it('takes an answer of the format before tags, or one whose tags run past its end, for a miss', () => {
    const bytes = encodeAnswer(answer)!;
    // Format 0x01: the same header without the two bytes of the tags' length.
    const tagsAt = 1 + 16 + 1 + answer.etag.length + 1 + answer.contentType.length;
    const old = Buffer.concat([bytes.subarray(0, tagsAt), bytes.subarray(tagsAt + 2)]);
    old[0] = 0x01;
    expect(decodeAnswer(old)).toBeUndefined();
    const broken = Buffer.from(bytes);
    broken.writeUInt16BE(0xffff, tagsAt);
    expect(decodeAnswer(broken)).toBeUndefined();
  });

  it('does not carry tags past twice the headers\' cap: such an answer is not shared', () => {
    const tags = (count: number) => Array.from({ length: count }, (_, i) => `product:${String(i).padStart(63, '0')}`);
    expect(decodeAnswer(encodeAnswer({ ...answer, tags: tags(56) })!)?.tags).toEqual(tags(56)); // 4,031 bytes
    expect(encodeAnswer({ ...answer, tags: tags(57) })).toBeUndefined();
  });
});
