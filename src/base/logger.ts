import { context, isSpanContextValid, trace } from '@opentelemetry/api';
import { writeSync } from 'node:fs';
import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };

/**
 * Paths pino replaces with `[redacted]`, as a second line of defence: the code never puts a
 * token, the client secret or an API key into a log call in the first place. Top-level and
 * header paths only: wildcard paths (`*.token`) make pino walk every object of every line,
 * which cost a tenth of the warm path's CPU (one line per request).
 */
const REDACT_PATHS = [
  'authorization',
  'headers.authorization',
  'access_token',
  'clientSecret',
  'client_secret',
  'token',
  'apiKeys',
  // Clients' API keys (GATEWAY_API_KEYS) as a header.
  '["x-api-key"]',
  'headers["x-api-key"]',
];

/**
 * Log bytes waiting for a slow stdout at most. pino writes asynchronously and, by default,
 * buffers without bound: a log reader that falls behind (one line per request) grew the
 * gateway's memory by hundreds of MB in the soak run. Past this, lines are dropped.
 */
const MAX_BUFFERED_LOG_BYTES = 8 * 1024 * 1024;

export interface LoggerOptions {
  /**
   * Add `trace_id` and `span_id` of the active OpenTelemetry span to every line written while one
   * is active, so logs and traces join. Default false: tracing off, no work per line.
   */
  traceIds?: boolean;
}

/** The one logger factory: JSON lines on stdout (or `destination`, which tests capture). */
export function createLogger(level: string, destination?: DestinationStream, options: LoggerOptions = {}): Logger {
  const out = destination ?? batched(pino.destination({ dest: 1, sync: false, maxLength: MAX_BUFFERED_LOG_BYTES }));
  return pino({ level, redact: { paths: REDACT_PATHS, censor: '[redacted]' }, ...(options.traceIds ? { mixin: traceIds } : {}) }, out);
}

/** How long a log line may wait to leave with others, in ms. */
const LOG_BATCH_MS = 10;
/** Bytes of lines that leave at once, without waiting. */
const LOG_BATCH_BYTES = 65_536;

/**
 * Lines leave together, at most LOG_BATCH_MS after the first of them. pino hands each line to
 * stdout at once, and each asynchronous write is a request to libuv's thread pool: one per
 * request served, 14 % of the executed path's CPU in a profile (`node --cpu-prof`, one product
 * per request), even when lines were gathered per turn of the event loop (a turn often serves
 * one request). The lines still pending at exit are written synchronously.
 */
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
  // At exit no later turn comes: what is still pending goes out synchronously, after whatever
  // the destination still holds.
  process.once('exit', () => {
    if (pending === '') return;
    try {
      out.flushSync();
    } catch {
      // not ready or busy writing: its own exit hook deals with that
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
 * An info line exactly as `logger.child(bindings).info(fields, message)` would write it (level,
 * time, the bindings, the fields, msg), but spliced from JSON.stringify of the flat objects
 * instead of pino's per-key serialisation and redaction, which were half of the request log's
 * cost on a response-cache hit (`npm run profile -- small on`), and without a child logger. Only
 * for the gateway's own names and counts: nothing in them to redact. With a mixin (trace ids)
 * the line is pino's own.
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
