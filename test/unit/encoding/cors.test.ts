import { describe, expect, it } from 'vitest';
import { createCors } from '../../../src/encoding/cors.js';

const CACHED = { vary: 'Accept, Accept-Encoding', cacheControl: 'public, max-age=60' };
const NO_STORE = { vary: 'Accept-Encoding', cacheControl: 'no-store' };

describe('CORS headers and their Vary', () => {
  it('echoes any origin with *, adding Origin to the Vary already there instead of replacing it', () => {
    const cors = createCors(['*']);
    expect(cors.headersFor(new Headers({ origin: 'https://a.example' }), CACHED)).toEqual({
      'access-control-allow-origin': 'https://a.example',
      'access-control-expose-headers': 'x-request-id, retry-after',
      vary: 'Accept, Accept-Encoding, Origin',
    });
    expect(cors.headersFor(new Headers({ origin: 'https://a.example' }), NO_STORE).vary).toBe('Accept-Encoding, Origin');
  });

  it('varies a cacheable answer on Origin even when the request sent none, and leaves a no-store one alone', () => {
    const cors = createCors(['https://a.example', 'https://b.example']);
    expect(cors.headersFor(new Headers(), CACHED)).toEqual({ vary: 'Accept, Accept-Encoding, Origin' });
    expect(cors.headersFor(new Headers(), { vary: null, cacheControl: null })).toEqual({ vary: 'Origin' });
    expect(cors.headersFor(new Headers(), NO_STORE)).toEqual({});
  });

  it('answers a listed origin with itself, another with null, and a list of one with its origin, never with credentials', () => {
    const cors = createCors(['https://a.example', 'https://b.example']);
    expect(cors.headersFor(new Headers({ origin: 'https://b.example' }), NO_STORE)['access-control-allow-origin']).toBe('https://b.example');
    const other = cors.headersFor(new Headers({ origin: 'https://evil.example' }), NO_STORE);
    expect([other['access-control-allow-origin'], other.vary]).toEqual(['null', undefined]);
    const one = createCors(['https://a.example']).headersFor(new Headers({ origin: 'https://evil.example' }), NO_STORE);
    expect(one['access-control-allow-origin']).toBe('https://a.example');
    expect(Object.keys(one)).not.toContain('access-control-allow-credentials');
  });

  it('allows a preflight the method and headers it asks for, varying on them', () => {
    const preflight = new Headers({ origin: 'https://a.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' });
    expect(createCors(['*']).headersFor(preflight, { vary: null, cacheControl: null })).toEqual({
      'access-control-allow-origin': 'https://a.example',
      'access-control-allow-methods': 'POST',
      'access-control-allow-headers': 'content-type',
      'access-control-expose-headers': 'x-request-id, retry-after',
      vary: 'Origin, Access-Control-Request-Headers',
    });
  });

  it('writes nothing when off', () => {
    const cors = createCors([]);
    expect([cors.on, cors.headersFor(new Headers({ origin: 'https://a.example' }), CACHED)]).toEqual([false, {}]);
  });
});
