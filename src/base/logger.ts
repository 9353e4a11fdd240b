import { context, isSpanContextValid, trace } from '@opentelemetry/api';
import { writeSync } from 'node:fs';
import { pino, type DestinationStream, type Logger } from 'pino';
import { PinoPretty } from 'pino-pretty';

export type { Logger };

/** Paths pino redacts, a second line of defence; no wildcards, which make pino walk every object. */
const REDACT_PATHS = [
  'authorization',
  'headers.authorization',
  'access_token',
  'clientSecret',
  'client_secret',
  'token',
  'apiKeys',
  '["x-api-key"]',
  'headers["x-api-key"]',
];

/** Log bytes waiting for a slow stdout at most; past this, lines are dropped rather than memory grown. */
const MAX_BUFFERED_LOG_BYTES = 8 * 1024 * 1024;

export interface LoggerOptions {
  /** Add the active span's `trace_id` and `span_id` to every line, so logs and traces join. Default false. */
  traceIds?: boolean;
  /**
   * `pretty`: lines for a person (time, level, message, then the fields), coloured on a terminal,
   * written synchronously; `json` (default): JSON lines, batched. Ignored with a `destination`.
   */
  format?: 'json' | 'pretty';
}

/** The one logger factory: JSON lines on stdout (or `destination`, which tests capture). */
export function createLogger(level: string, destination?: DestinationStream, options: LoggerOptions = {}): Logger {
  const out = destination ?? (options.format === 'pretty' ? prettyStdout() : batched(pino.destination({ dest: 1, sync: false, maxLength: MAX_BUFFERED_LOG_BYTES })));
  return pino({ level, redact: { paths: REDACT_PATHS, censor: '[redacted]' }, ...(options.traceIds ? { mixin: traceIds } : {}) }, out);
}

// Private: pino-pretty on stdout, one line an entry (its fields as JSON after the message).
function prettyStdout(): DestinationStream {
  return PinoPretty({
    destination: 1,
    sync: true,
    colorize: process.stdout.isTTY === true,
    singleLine: true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname',
  });
}

/** How long a log line may wait to leave with others, in ms; past LOG_BATCH_BYTES lines leave at once. */
const LOG_BATCH_MS = 10;
const LOG_BATCH_BYTES = 65_536;

// Private: lines leave together (each write is a trip to libuv's thread pool); synchronously at exit.
function batched(out: ReturnType<typeof pino.destination>): DestinationStream & { destination: typeof out } {
  let pending = '';
  let timer: NodeJS.Timeout | undefined;
  const drain = (): void => {
    clearTimeout(timer);
    timer = undefined;
    const lines = pending;
    pending = '';
    if (lines !== '') out.write(lines);
  };
  process.once('exit', () => {
    if (pending === '') return;
    try {
      out.flushSync();
    } catch {
      // not ready or busy: its own exit hook deals with that
    }
    writeSync(1, pending);
  });
  return {
    destination: out,
    write(line: string): void {
      pending += line;
      if (pending.length >= LOG_BATCH_BYTES) drain();
      else timer ??= setTimeout(drain, LOG_BATCH_MS).unref();
    },
  };
}

/** Writes one info line: `bindings` (a child logger's, such as the request id) before `fields`. */
export type InfoLine = (bindings: Record<string, unknown>, fields: object, message: string) => void;

const lineWriters = new WeakMap<Logger, InfoLine>();

/**
 * An info line exactly as `logger.child(bindings).info(fields, message)` would write it, spliced
 * from JSON.stringify without pino's per-key redaction: only for the gateway's own names and
 * counts, which hold nothing to redact. With a mixin (trace ids) the line is pino's own.
 */
export function infoLine(logger: Logger): InfoLine {
  let write = lineWriters.get(logger);
  if (write === undefined) {
    const own = logger as unknown as Record<symbol, unknown>;
    const time = own[pino.symbols.timeSym] as () => string;
    const stream = own[pino.symbols.streamSym] as DestinationStream;
    write = own[pino.symbols.mixinSym] !== undefined
      ? (bindings, fields, message) => logger.info({ ...bindings, ...fields }, message)
      : (bindings, fields, message) => {
          if (!logger.isLevelEnabled('info')) return;
          const line = `${members(bindings)}${members(fields)},"msg":${JSON.stringify(message)}}\n`;
          stream.write(`{"level":30${time()}${own[pino.symbols.chindingsSym] as string}${line}`);
        };
    lineWriters.set(logger, write);
  }
  return write;
}

// Private: an object's members as JSON after others (`,"a":1,"b":2`), or '' for none.
function members(value: object): string {
  const json = JSON.stringify(value);
  return json.length > 2 ? `,${json.slice(1, -1)}` : '';
}

// Private: the active span's ids (a span not sampled has them too: its trace goes on upstream).
function traceIds(): Record<string, string> {
  const span = trace.getSpan(context.active());
  if (span === undefined) return {};
  const ids = span.spanContext();
  return isSpanContextValid(ids) ? { trace_id: ids.traceId, span_id: ids.spanId } : {};
}
