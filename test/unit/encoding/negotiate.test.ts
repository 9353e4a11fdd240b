import { describe, expect, it } from 'vitest';
import { CODINGS, negotiate } from '../../../src/encoding/negotiate.js';

describe('Accept-Encoding negotiation (RFC 9110 §12.5.3)', () => {
  it.each([
    [undefined, 'identity'],
    ['', 'identity'],
    ['gzip', 'gzip'],
    ['gzip, br', 'br'],
    ['br;q=0.5, gzip', 'gzip'],
    ['GZIP;Q=0.8', 'gzip'],
    ['x-gzip', 'gzip'],
    ['deflate', 'identity'],
    ['*', 'br'],
    ['*;q=0.5, br;q=0', CODINGS.includes('zstd') ? 'zstd' : 'gzip'],
    ['gzip;q=0', 'identity'],
    ['identity', 'identity'],
    ['identity;q=0, gzip;q=0.1', 'gzip'],
    ['br;q=0.2, identity;q=0.5', 'identity'],
    ['gzip;q=abc', 'gzip'],
  ] as const)('%s → %s', (header, expected) => {
    expect(negotiate(header)).toBe(expected);
  });

  it('gives nothing when every coding we make and identity are refused', () => {
    expect(negotiate('identity;q=0, deflate')).toBeUndefined();
    expect(negotiate('*;q=0')).toBeUndefined();
  });

  it('offers zstd on this Node (26 has it)', () => {
    expect(CODINGS).toEqual(['br', 'zstd', 'gzip']);
  });
});
