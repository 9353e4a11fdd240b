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
      expect(String(write.mock.calls[0]![0]).split('\n').filter(Boolean).map((line) => JSON.parse(line).i)).toEqual([0, 1, 2]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('hands stdout every line whole, in order, in UTF-8: a line that does not fit goes with the next batch, a huge one alone', () => {
    vi.useFakeTimers();
    try {
      const logger = createLogger('info');
      const { destination } = (logger as unknown as Record<symbol, { destination: { write(bytes: Uint8Array): boolean } }>)[pino.symbols.streamSym]!;
      const write = vi.spyOn(destination, 'write').mockReturnValue(true);
      const texts = ['é€😀', 'x'.repeat(30_000), 'y'.repeat(40_000), 'z'.repeat(70_000), 'last'];
      for (const text of texts) logger.info({ text }, 'line');
      vi.advanceTimersByTime(10);
      // Batches of at most 64 KiB: the first two lines, then the third (which would not fit beside them), the huge fourth alone, the last.
      expect(write.mock.calls.map(([bytes]) => bytes.byteLength <= 65_536 || String(bytes).includes('z'.repeat(70_000)))).toEqual([true, true, true, true]);
      const lines = Buffer.concat(write.mock.calls.map(([bytes]) => bytes)).toString('utf8').split('\n').filter(Boolean);
      expect(lines.map((line) => JSON.parse(line).text)).toEqual(texts);
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
