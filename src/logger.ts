import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };

/**
 * Paths pino replaces with `[redacted]` wherever they appear in a log object, as a second line of
 * defence: the code never puts a token or the client secret into a log call in the first place.
 */
const REDACT_PATHS = [
  'authorization',
  '*.authorization',
  'headers.authorization',
  '*.headers.authorization',
  'access_token',
  '*.access_token',
  'clientSecret',
  '*.clientSecret',
  'client_secret',
  '*.client_secret',
  'token',
  '*.token',
  // Clients' API keys (GATEWAY_API_KEYS), as a header or as configuration.
  '["x-api-key"]',
  '*["x-api-key"]',
  'headers["x-api-key"]',
  '*.headers["x-api-key"]',
  'apiKeys',
  '*.apiKeys',
];

/** The one logger factory: JSON lines on stdout (or `destination`, which tests capture). */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino({ level, redact: { paths: REDACT_PATHS, censor: '[redacted]' } }, destination);
}
