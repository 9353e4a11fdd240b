import { pino } from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../../src/base/logger.js';

describe('the logger', () => {
  it('writes to stdout through a bounded buffer, so a slow log reader cannot grow the heap', () => {
    const logger = createLogger('info');
    const { destination } = (logger as unknown as Record<symbol, { destination: { maxLength?: number; fd?: number } }>)[pino.symbols.streamSym]!;
    expect(destination.fd).toBe(1);
    expect(destination.maxLength).toBe(8 * 1024 * 1024);
  });

  it('hands stdout the lines of 10 ms in one write, not one write per line', () => {
    vi.useFakeTimers();
    try {
      const logger = createLogger('info');
      const { destination } = (logger as unknown as Record<symbol, { destination: { write(text: string): boolean } }>)[pino.symbols.streamSym]!;
      const write = vi.spyOn(destination, 'write').mockReturnValue(true);
      for (let i = 0; i < 3; i++) logger.info({ i }, 'line');
      expect(write).not.toHaveBeenCalled();
      vi.advanceTimersByTime(10);
      expect(write).toHaveBeenCalledTimes(1);
      expect(write.mock.calls[0]![0].split('\n').filter(Boolean).map((line) => JSON.parse(line).i)).toEqual([0, 1, 2]);
    } finally {
      vi.useRealTimers();
    }
  });
});
