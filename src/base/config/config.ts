/** The one place that reads environment variables; every problem is reported at once (shape.ts names them). */
import { createReader, present, type Env, type Reader } from './readers.js';
import { PERSISTED_FORMATS } from './persisted-formats.js';
import { DEFAULT_MAX_BYTES as DEFAULT_PERSISTED_MAX_BYTES } from './persisted-operations.js';
import { readTracing } from './tracing.js';
import { parseTrustProxy, type TrustProxy } from './trust-proxy.js';
import { readRedis } from './redis.js';
import type { ClientAuth, Config, LogFormat, LogLevel, UpstreamConfig } from './shape.js';

export type { RedisConfig, RedisTopology } from './redis.js';
export type { ClientAuth, LogFormat, LogLevel, UpstreamConfig, Config, GatewayConfig, WebSocketLimits, LiveConfig, IndexConfig } from './shape.js';

/** Thrown by `loadConfig` with every problem found, one per line. */
export class ConfigError extends Error {
  override name = 'ConfigError';
  readonly problems: readonly string[];
  constructor(problems: readonly string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.problems = problems;
  }
}

const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
const LOG_FORMATS: readonly LogFormat[] = ['auto', 'json', 'pretty'];
const DAY_S = 86_400;
/** Shortest API key accepted: long enough that guessing is hopeless (e.g. `openssl rand -hex 16`). */
const MIN_API_KEY_LENGTH = 16;


/** Reads and validates the configuration from `env` (usually `process.env`); throws a `ConfigError`. */
export function loadConfig(env: Env): Config {
  const problems: string[] = [];
  const read = createReader(env, problems);
  // Production posture: GraphiQL, introspection and cross-origin calls are off unless asked for.
  const production = env.NODE_ENV?.trim() === 'production';
  const upstream = readUpstream(env, read, problems);
  const config: Config = {
    port: read.int('PORT', 4000, 0, 65_535),
    host: read.string('HOST', '0.0.0.0'),
    upstream,
    upstreamTimeoutMs: read.int('UPSTREAM_TIMEOUT_MS', 10_000, 1, 600_000),
    upstreamRetries: read.int('UPSTREAM_RETRIES', 2, 0, 10),
    upstreamMaxConcurrency: read.int('UPSTREAM_MAX_CONCURRENCY', 32, 1, 1024),
    upstreamMaxQueue: read.int('UPSTREAM_MAX_QUEUE', 1000, 0, 1_000_000),
    upstreamBreakerCooldownMs: read.int('UPSTREAM_BREAKER_COOLDOWN_MS', 5000, 1, 600_000),
    tokenTimeoutMs: read.int('TOKEN_TIMEOUT_MS', 5000, 1, 600_000),
    requestTimeoutMs: read.int('REQUEST_TIMEOUT_MS', 15_000, 1, 600_000),
    maxPageSize: read.int('MAX_PAGE_SIZE', 100, 1, 1000),
    maxUpstreamCallsPerOperation: read.int('MAX_UPSTREAM_CALLS_PER_OPERATION', 100, 1, 100_000),
    maxItemsPerOperation: read.int('MAX_ITEMS_PER_OPERATION', 50_000, 1, 10_000_000),
    cacheTtlCitiesS: read.int('CACHE_TTL_CITIES_S', 3600, 1, 7 * DAY_S),
    cacheTtlSitesS: read.int('CACHE_TTL_SITES_S', 30, 1, 7 * DAY_S),
    cacheTtlProductsS: read.int('CACHE_TTL_PRODUCTS_S', 600, 1, 7 * DAY_S),
    cacheMaxEntries: read.int('CACHE_MAX_ENTRIES', 50_000, 100, 10_000_000),
    cacheStaleWhileRevalidateS: read.int('CACHE_STALE_WHILE_REVALIDATE_S', 0, 0, 7 * DAY_S),
    cacheStaleIfErrorS: read.int('CACHE_STALE_IF_ERROR_S', 300, 0, 7 * DAY_S),
    shutdownGraceMs: read.int('SHUTDOWN_GRACE_MS', 10_000, 0, 600_000),
    maxRequestBodyBytes: read.int('MAX_REQUEST_BODY_BYTES', 1_048_576, 1024, 104_857_600),
    maxDecodingBytes: read.int('MAX_DECODING_BYTES', 33_554_432, 1_048_576, 4_294_967_296),
    responseCacheMaxBytes: read.int('RESPONSE_CACHE_MAX_BYTES', 33_554_432, 0, 4_294_967_296),
    compression: read.bool('COMPRESSION', true),
    compressionMinBytes: read.int('COMPRESSION_MIN_BYTES', 1024, 0, 1_073_741_824),
    executionCompiled: read.bool('EXECUTION_COMPILED', true),
    maxQueryBytes: read.int('MAX_QUERY_BYTES', 32_768, 1024, 1_048_576),
    maxVariablesBytes: read.int('MAX_VARIABLES_BYTES', 16_384, 1024, 1_048_576),
    apiKeys: read.keys('GATEWAY_API_KEYS', MIN_API_KEY_LENGTH),
    adminApiKeys: read.keys('ADMIN_API_KEYS', MIN_API_KEY_LENGTH),
    rateLimitPerMinute: read.int('RATE_LIMIT_PER_MINUTE', 0, 0, 1_000_000),
    trustProxy: readTrustProxy(env, problems),
    logLevel: read.oneOf('LOG_LEVEL', 'info', LOG_LEVELS),
    logFormat: read.oneOf('LOG_FORMAT', 'auto', LOG_FORMATS),
    requestLogSamplePercent: read.int('REQUEST_LOG_SAMPLE_PERCENT', 100, 0, 100),
    requestLogSlowMs: read.int('REQUEST_LOG_SLOW_MS', 1000, 0, 3_600_000),
    demoLatencyMs: read.int('DEMO_LATENCY_MS', 5, 0, 10_000),
    demoSalesPerMinute: read.int('DEMO_SALES_PER_MINUTE', upstream === undefined ? 60 : 0, 0, 60_000),
    maxQueryDepth: read.int('MAX_QUERY_DEPTH', 6, 1, 100),
    maxAliases: read.int('MAX_ALIASES', 15, 0, 1000),
    maxQueryTokens: read.int('MAX_QUERY_TOKENS', 1000, 10, 100_000),
    maxDirectives: read.int('MAX_DIRECTIVES', 50, 0, 1000),
    maxQueryCost: read.int('MAX_QUERY_COST', 1000, 1, 1_000_000),
    exposeQueryLimits: read.bool('EXPOSE_QUERY_LIMITS', false),
    persistedOperations: read.persistedOperations(
      'PERSISTED_OPERATIONS_FILE',
      read.oneOf('PERSISTED_OPERATIONS_FORMAT', 'auto', PERSISTED_FORMATS),
      read.int('PERSISTED_OPERATIONS_MAX_BYTES', DEFAULT_PERSISTED_MAX_BYTES, 1024, 268_435_456),
    ),
    csrfPrevention: read.bool('CSRF_PREVENTION', false),
    corsOrigins: read.origins('CORS_ORIGINS', production ? [] : ['*']),
    batchingLimit: read.int('BATCHING_LIMIT', 0, 0, 100),
    graphiql: read.bool('GRAPHIQL', !production),
    introspection: read.bool('INTROSPECTION', !production),
    redis: readRedis(env, read, problems),
    index: {
      enabled: read.bool('INDEX_ENABLED', true),
      refreshS: present(env.INDEX_REFRESH_S) ? read.int('INDEX_REFRESH_S', 30, 1, 7 * DAY_S) : undefined,
      warmOnStart: read.bool('INDEX_WARM_ON_START', false),
    },
    siteTimeZone: read.string('SITE_TIMEZONE', 'Asia/Shanghai'),
    tracing: readTracing(env, read, problems),
    live: {
      pollS: read.number('LIVE_POLL_S', 10, 0.1, 3600),
      maxSubscriptions: read.int('LIVE_MAX_SUBSCRIPTIONS', 10_000, 1, 1_000_000),
      maxSubscriptionsPerClient: read.int('LIVE_MAX_SUBSCRIPTIONS_PER_CLIENT', 100, 1, 1_000_000),
      maxWatchedKeys: read.int('LIVE_MAX_WATCHED_KEYS', 2000, 1, 1_000_000),
      maxWatchedKeysPerClient: read.int('LIVE_MAX_WATCHED_KEYS_PER_CLIENT', 200, 1, 1_000_000),
    },
    webSocket: {
      maxOperationsPerSocket: read.int('WS_MAX_OPERATIONS_PER_SOCKET', 100, 1, 100_000),
      maxBufferedBytes: read.int('WS_MAX_BUFFERED_BYTES', 4_194_304, 65_536, 1_073_741_824),
      maxSocketsPerClient: read.int('WS_MAX_SOCKETS_PER_CLIENT', 20, 1, 1_000_000),
    },
  };
  if (!isTimeZone(config.siteTimeZone)) {
    problems.push(`SITE_TIMEZONE must be an IANA time zone such as Asia/Shanghai, but got: ${JSON.stringify(config.siteTimeZone)}`);
  }
  if (config.adminApiKeys.some((key) => config.apiKeys.includes(key))) {
    problems.push('ADMIN_API_KEYS must not repeat a key of GATEWAY_API_KEYS: a client key must never purge');
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/** Whether `timeZone` is an IANA time zone this runtime knows. */
export function isTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone });
    return true;
  } catch {
    return false;
  }
}

// Private: `TRUST_PROXY`, naming the entries that are neither an address nor a CIDR range.
function readTrustProxy(env: Env, problems: string[]): TrustProxy | undefined {
  const raw = env.TRUST_PROXY;
  if (!present(raw)) return undefined;
  const parsed = parseTrustProxy(raw);
  if ('trust' in parsed) return parsed.trust;
  problems.push('TRUST_PROXY must be a number of proxies from 0 to 100 or comma-separated proxy addresses and CIDR ranges '
    + `(e.g. 1, or 10.0.0.0/8,127.0.0.1,fd00::/8), but got: ${JSON.stringify(raw)} (not an address or range: ${parsed.invalid.map((entry) => JSON.stringify(entry)).join(', ')})`);
  return undefined;
}

function readUpstream(env: Env, read: Reader, problems: string[]): UpstreamConfig | undefined {
  const clientAuth = read.oneOf<ClientAuth>('OAUTH_CLIENT_AUTH', 'basic', ['basic', 'post']);
  const baseUrl = read.url('UPSTREAM_BASE_URL');
  const tokenUrl = read.url('OAUTH_TOKEN_URL');
  if (baseUrl === undefined) return undefined;
  const required = ['OAUTH_TOKEN_URL', 'OAUTH_CLIENT_ID', 'OAUTH_CLIENT_SECRET'];
  for (const name of required) {
    if (!present(env[name])) problems.push(`${name} is required when UPSTREAM_BASE_URL is set`);
  }
  return {
    baseUrl,
    tokenUrl: tokenUrl ?? '',
    clientId: env.OAUTH_CLIENT_ID?.trim() ?? '',
    clientSecret: env.OAUTH_CLIENT_SECRET ?? '',
    scope: present(env.OAUTH_SCOPE) ? env.OAUTH_SCOPE.trim() : undefined,
    clientAuth,
  };
}
