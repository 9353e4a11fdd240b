import { describe, expect, it } from 'vitest';
import { codingHeaders, type SentAnswer } from '../../../src/encoding/compress.js';

const sent = (coding: SentAnswer['coding'], vary: boolean, etag?: string): SentAnswer => ({ body: new Uint8Array(), coding, etag, vary });

describe('an answer\'s coding headers', () => {
  it('adds Accept-Encoding to Vary once, keeping the names already there', () => {
    expect(codingHeaders(sent('identity', true), undefined)).toEqual({ vary: 'Accept-Encoding' });
    expect(codingHeaders(sent('identity', true), '')).toEqual({ vary: 'Accept-Encoding' });
    expect(codingHeaders(sent('br', true), 'Accept, Origin')).toEqual({ 'content-encoding': 'br', vary: 'Accept, Origin, Accept-Encoding' });
    expect(codingHeaders(sent('gzip', true), 'accept-encoding, Origin')).toEqual({ 'content-encoding': 'gzip', vary: 'accept-encoding, Origin' });
    expect(codingHeaders(sent('gzip', true), '*')).toEqual({ 'content-encoding': 'gzip', vary: '*' });
  });

  it('sets no Vary on an answer that does not vary, and the ETag of the coding sent', () => {
    expect(codingHeaders(sent('identity', false), 'Origin')).toEqual({});
    expect(codingHeaders(sent('zstd', true, '"e-zstd"'), undefined)).toEqual({ 'content-encoding': 'zstd', vary: 'Accept-Encoding', etag: '"e-zstd"' });
  });
});
