/**
 * The gateway's configuration: the one place that reads environment variables. `loadConfig`
 * validates every variable and reports all problems at once, so an operator fixes them in one go.
 */

export type ClientAuth = 'basic' | 'post';
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

/** Where the gateway finds the upstream and how it authenticates there. */
export interface UpstreamConfig {
  /** `UPSTREAM_BASE_URL`: the REST API's base address. */
  baseUrl: string;
  /** `OAUTH_TOKEN_URL`: the client_credentials token endpoint. */
  tokenUrl: string;
  /** `OAUTH_CLIENT_ID`. */
  clientId: string;
  /** `OAUTH_CLIENT_SECRET`: never logged, never echoed in an error. */
  clientSecret: string;
  /** `OAUTH_SCOPE`: sent with the token request when set. Default: none. */
  scope: string | undefined;
  /** `OAUTH_CLIENT_AUTH`: `basic` (HTTP Basic) or `post` (form body). Default `basic`. */
  clientAuth: ClientAuth;
}

export interface Config {
  /** `PORT`: TCP port to listen on. Default 4000; 0 picks a free port. */
  port: number;
  /** `HOST`: interface to listen on. Default `0.0.0.0`. */
  host: string;
  /** The upstream, or `undefined` (no `UPSTREAM_BASE_URL`): demo mode with the in-process mock upstream. */
  upstream: UpstreamConfig | undefined;
  /** `UPSTREAM_TIMEOUT_MS`: bound on each upstream call attempt (connect, headers and body), in ms. Default 10000. */
  upstreamTimeoutMs: number;
  /** `UPSTREAM_RETRIES`: extra attempts after a network error, timeout, 5xx or non-JSON answer. Default 2. */
  upstreamRetries: number;
  /** `UPSTREAM_MAX_CONCURRENCY`: upstream calls in flight at most (and keep-alive sockets). Default 32. */
  upstreamMaxConcurrency: number;
  /** `UPSTREAM_MAX_QUEUE`: calls waiting for a slot at most; more fail fast. Default 1000. */
  upstreamMaxQueue: number;
  /** `UPSTREAM_BREAKER_COOLDOWN_MS`: how long an open circuit fails fast before one probe, in ms. Default 5000. */
  upstreamBreakerCooldownMs: number;
  /** `TOKEN_TIMEOUT_MS`: bound on each token request, in ms. Default 5000. */
  tokenTimeoutMs: number;
  /** `REQUEST_TIMEOUT_MS`: deadline of a GraphQL request; what has not resolved by then errs. Default 15000. */
  requestTimeoutMs: number;
  /** `MAX_PAGE_SIZE`: the largest `pageSize` a client may ask for. Default 100. */
  maxPageSize: number;
  /** `CACHE_TTL_CITIES_S`: how long cities (and the site-to-city index) are reused, in s. Default 3600. */
  cacheTtlCitiesS: number;
  /** `CACHE_TTL_SITES_S`: how long sites, points and stock are reused, in s. Default 30. */
  cacheTtlSitesS: number;
  /** `CACHE_TTL_PRODUCTS_S`: how long products are reused, in s. Default 600. */
  cacheTtlProductsS: number;
  /** `CACHE_MAX_ENTRIES`: entries the shared cache holds before evicting the least recently used. Default 50000. */
  cacheMaxEntries: number;
  /**
   * `CACHE_STALE_WHILE_REVALIDATE_S`: how long past its TTL an entry is still served at once while
   * one background refresh runs, in s. Default 0 (off: nothing past its TTL is served while the
   * upstream answers).
   */
  cacheStaleWhileRevalidateS: number;
  /** `CACHE_STALE_IF_ERROR_S`: how long past its TTL an entry is served when its refresh fails, in s. Default 300. */
  cacheStaleIfErrorS: number;
  /** `SHUTDOWN_GRACE_MS`: on SIGTERM, how long in-flight requests may take to finish, in ms. Default 10000. */
  shutdownGraceMs: number;
  /** `MAX_REQUEST_BODY_BYTES`: largest request body accepted; larger gets 413. Default 1048576. */
  maxRequestBodyBytes: number;
  /** `LOG_LEVEL`: pino level. Default `info`. */
  logLevel: LogLevel;
  /** `DEMO_LATENCY_MS`: latency of the demo-mode mock upstream, in ms. Default 5. */
  demoLatencyMs: number;
}

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
const DAY_S = 86_400;

type Env = Record<string, string | undefined>;

/** Reads and validates the configuration from `env` (usually `process.env`); throws a `ConfigError`. */
export function loadConfig(env: Env): Config {
  const problems: string[] = [];
  const read = createReader(env, problems);
  const config: Config = {
    port: read.int('PORT', 4000, 0, 65_535),
    host: read.string('HOST', '0.0.0.0'),
    upstream: readUpstream(env, read, problems),
    upstreamTimeoutMs: read.int('UPSTREAM_TIMEOUT_MS', 10_000, 1, 600_000),
    upstreamRetries: read.int('UPSTREAM_RETRIES', 2, 0, 10),
    upstreamMaxConcurrency: read.int('UPSTREAM_MAX_CONCURRENCY', 32, 1, 1024),
    upstreamMaxQueue: read.int('UPSTREAM_MAX_QUEUE', 1000, 0, 1_000_000),
    upstreamBreakerCooldownMs: read.int('UPSTREAM_BREAKER_COOLDOWN_MS', 5000, 1, 600_000),
    tokenTimeoutMs: read.int('TOKEN_TIMEOUT_MS', 5000, 1, 600_000),
    requestTimeoutMs: read.int('REQUEST_TIMEOUT_MS', 15_000, 1, 600_000),
    maxPageSize: read.int('MAX_PAGE_SIZE', 100, 1, 1000),
    cacheTtlCitiesS: read.int('CACHE_TTL_CITIES_S', 3600, 1, 7 * DAY_S),
    cacheTtlSitesS: read.int('CACHE_TTL_SITES_S', 30, 1, 7 * DAY_S),
    cacheTtlProductsS: read.int('CACHE_TTL_PRODUCTS_S', 600, 1, 7 * DAY_S),
    cacheMaxEntries: read.int('CACHE_MAX_ENTRIES', 50_000, 100, 10_000_000),
    cacheStaleWhileRevalidateS: read.int('CACHE_STALE_WHILE_REVALIDATE_S', 0, 0, 7 * DAY_S),
    cacheStaleIfErrorS: read.int('CACHE_STALE_IF_ERROR_S', 300, 0, 7 * DAY_S),
    shutdownGraceMs: read.int('SHUTDOWN_GRACE_MS', 10_000, 0, 600_000),
    maxRequestBodyBytes: read.int('MAX_REQUEST_BODY_BYTES', 1_048_576, 1024, 104_857_600),
    logLevel: read.oneOf('LOG_LEVEL', 'info', LOG_LEVELS),
    demoLatencyMs: read.int('DEMO_LATENCY_MS', 5, 0, 10_000),
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
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

// Private: typed readers that record a problem instead of throwing, so all are reported at once.
interface Reader {
  int(name: string, fallback: number, min: number, max: number): number;
  string(name: string, fallback: string): string;
  oneOf<T extends string>(name: string, fallback: T, allowed: readonly T[]): T;
  url(name: string): string | undefined;
}

function createReader(env: Env, problems: string[]): Reader {
  return {
    int(name, fallback, min, max) {
      const raw = env[name];
      if (!present(raw)) return fallback;
      const value = Number(raw.trim());
      if (!Number.isInteger(value) || value < min || value > max) {
        problems.push(`${name} must be an integer from ${min} to ${max}, but got: ${JSON.stringify(raw)}`);
        return fallback;
      }
      return value;
    },
    string(name, fallback) {
      const raw = env[name];
      return present(raw) ? raw.trim() : fallback;
    },
    oneOf(name, fallback, allowed) {
      const raw = env[name];
      if (!present(raw)) return fallback;
      const value = raw.trim().toLowerCase();
      const match = allowed.find((option) => option === value);
      if (match === undefined) {
        problems.push(`${name} must be one of ${allowed.join(', ')}, but got: ${JSON.stringify(raw)}`);
        return fallback;
      }
      return match;
    },
    url(name) {
      const raw = env[name];
      if (!present(raw)) return undefined;
      // The value is not echoed: a URL may carry credentials.
      if (!URL.canParse(raw.trim()) || !/^https?:$/.test(new URL(raw.trim()).protocol)) {
        problems.push(`${name} must be an absolute http or https URL`);
        return undefined;
      }
      return raw.trim().replace(/\/+$/, '');
    },
  };
}

function present(value: string | undefined): value is string {
  return value !== undefined && value.trim() !== '';
}
