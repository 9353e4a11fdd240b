import { pino } from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { createLogger, infoLine } from '../../../src/base/logger.js';

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

  it('writes a request\'s line byte for byte as pino writes it, but the time', () => {
    const lines: string[] = [];
    const logger = createLogger('info', { write: (line: string) => void lines.push(line) });
    const fields = { operation: 'Q"uoted\u2028é', status: 200, durationMs: 1.5, responseCache: undefined, errorCodes: ['A', 'B'], none: [] };
    logger.child({ requestId: 'r-1' }).info(fields, 'graphql request');
    infoLine(logger)({ requestId: 'r-1' }, fields, 'graphql request');
    infoLine(logger)({}, {}, 'empty');
    const [pinos, ours, empty] = lines.map((line) => line.replace(/"time":\d+/, '"time":0'));
    expect(ours).toBe(pinos);
    expect(JSON.parse(empty!)).toMatchObject({ level: 30, msg: 'empty' });
  });

  it('writes nothing below its level, and lets pino write the line when a mixin adds to it', () => {
    const lines: string[] = [];
    infoLine(createLogger('warn', { write: (line: string) => void lines.push(line) }))({}, { a: 1 }, 'dropped');
    expect(lines).toEqual([]);
    const mixed = pino({ mixin: () => ({ trace_id: 't' }) }, { write: (line: string) => void lines.push(line) });
    infoLine(mixed)({ requestId: 'r-2' }, { a: 1 }, 'kept');
    expect(JSON.parse(lines[0]!)).toMatchObject({ requestId: 'r-2', a: 1, trace_id: 't', msg: 'kept' });
  });
});
