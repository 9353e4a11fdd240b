/**
 * yoga's logger interface over pino. Yoga logs each error it masks; an upstream failure was
 * already logged once, as a warning, by the upstream client, so here it is debug.
 */
import type { Logger } from '../base/logger.js';
import { isUpstreamError } from '../upstream/errors.js';

export function yogaLogger(logger: Logger) {
  const forward =
    (level: 'debug' | 'info' | 'warn' | 'error') =>
    (first: unknown, ...rest: unknown[]) => {
      if (first instanceof Error) {
        const upstream = isUpstreamError((first as { originalError?: unknown }).originalError ?? first);
        logger[upstream ? 'debug' : level]({ err: first }, first.message);
      } else logger[level](rest.length > 0 ? { details: rest } : {}, String(first));
    };
  return { debug: forward('debug'), info: forward('info'), warn: forward('warn'), error: forward('error') };
}
