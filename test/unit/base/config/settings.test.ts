import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../src/base/config/config.js';
import { problemsOf } from '../../../helpers/config.js';


describe('protection and operations settings', () => {
  it('reads API keys, comma-separated and trimmed, and the per-minute rate limit', () => {
    const config = loadConfig({
      GATEWAY_API_KEYS: ' first-key-0123456789 ,second-key-0123456789',
      RATE_LIMIT_PER_MINUTE: '600',
    });
    expect(config.apiKeys).toEqual(['first-key-0123456789', 'second-key-0123456789']);
    expect(config.rateLimitPerMinute).toBe(600);
  });

  it('refuses short or malformed keys by position, never showing one', () => {
    const problems = problemsOf({ GATEWAY_API_KEYS: 'good-key-0123456789,short-key,with space in-it-0123,', RATE_LIMIT_PER_MINUTE: '-1' });
    expect(problems).toHaveLength(2);
    expect(problems[0]).toContain('GATEWAY_API_KEYS');
    expect(problems[0]).toContain('but key 2, 3, 4 of 4 is not');
    for (const secret of ['good-key', 'short-key', 'with space']) expect(problems.join('\n')).not.toContain(secret);
    expect(problems[1]).toContain('RATE_LIMIT_PER_MINUTE');
  });
});
