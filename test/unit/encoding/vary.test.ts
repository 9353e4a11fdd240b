import { describe, expect, it } from 'vitest';
import { varyWith } from '../../../src/encoding/vary.js';

describe('the one builder of Vary', () => {
  it('adds names after those already there, never dropping one', () => {
    expect(varyWith(undefined, ['Accept-Encoding'])).toBe('Accept-Encoding');
    expect(varyWith(null, [])).toBe('');
    expect(varyWith('Accept-Encoding', ['Origin'])).toBe('Accept-Encoding, Origin');
    expect(varyWith('Accept, Accept-Encoding', ['Accept', 'Origin'])).toBe('Accept, Accept-Encoding, Origin');
  });

  it('keeps each name once, compared without case, spelled as first named', () => {
    expect(varyWith('accept-encoding,  Origin ,', ['Accept-Encoding', 'ORIGIN', 'Accept'])).toBe('accept-encoding, Origin, Accept');
    expect(varyWith('', ['Origin', 'origin'])).toBe('Origin');
  });

  it('answers * whenever any name is *', () => {
    expect(varyWith('*', ['Accept-Encoding'])).toBe('*');
    expect(varyWith('Accept', ['*'])).toBe('*');
    expect(varyWith(undefined, ['*'])).toBe('*');
  });

});
