import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../src/logger.js';

describe('the logger', () => {
  it('writes to stdout through a bounded buffer, so a slow log reader cannot grow the heap', () => {
    const logger = createLogger('info');
    const stream = (logger as unknown as Record<symbol, { maxLength?: number; fd?: number }>)[pino.symbols.streamSym]!;
    expect(stream.fd).toBe(1);
    expect(stream.maxLength).toBe(8 * 1024 * 1024);
  });
});
