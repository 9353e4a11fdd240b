/** Every setting, with the variable it comes from, its unit and its default; config.ts reads them. */
import type { PersistedOperations } from './persisted-operations.js';
import type { TracingConfig } from './tracing.js';
import type { TrustProxy } from './trust-proxy.js';
import type { RedisConfig } from './redis.js';

export type ClientAuth = 'basic' | 'post';
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
export type LogFormat = 'auto' | 'json' | 'pretty';

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
  /** `MAX_UPSTREAM_CALLS_PER_OPERATION`: upstream calls one operation may cause, estimated and counted. Default 100. */
  maxUpstreamCallsPerOperation: number;
  /** `MAX_ITEMS_PER_OPERATION`: list entries one operation may return, by list bounds through nesting. Default 50000. */
  maxItemsPerOperation: number;
  /** `CACHE_TTL_CITIES_S`: how long cities (and the site-to-city index) are reused, in s. Default 3600. */
  cacheTtlCitiesS: number;
  /** `CACHE_TTL_SITES_S`: how long sites, points and stock are reused, in s. Default 30. */
  cacheTtlSitesS: number;
  /** `CACHE_TTL_PRODUCTS_S`: how long products are reused, in s. Default 600. */
  cacheTtlProductsS: number;
  /** `CACHE_MAX_ENTRIES`: entries the shared cache holds before evicting the least recently used. Default 50000. */
  cacheMaxEntries: number;
  /** `CACHE_STALE_WHILE_REVALIDATE_S`: how long past its TTL an entry is served while it refreshes, in s. Default 0. */
  cacheStaleWhileRevalidateS: number;
  /** `CACHE_STALE_IF_ERROR_S`: how long past its TTL an entry is served when its refresh fails, in s. Default 300. */
  cacheStaleIfErrorS: number;
  /** `SHUTDOWN_GRACE_MS`: on SIGTERM, how long in-flight requests may take to finish, in ms. Default 10000. */
  shutdownGraceMs: number;
  /** `MAX_REQUEST_BODY_BYTES`: largest request body accepted; larger gets 413. Default 1048576. */
  maxRequestBodyBytes: number;
  /** `MAX_DECODING_BYTES`: bytes all compressed bodies being decoded may hold at once; over it, 503. Default 32 MiB. */
  maxDecodingBytes: number;
  /** `RESPONSE_CACHE_MAX_BYTES`: bytes of whole answers kept for identical requests; 0 off. Default 32 MiB. */
  responseCacheMaxBytes: number;
  /** `COMPRESSION`: compress whole JSON answers as `Accept-Encoding` asks. Default true. */
  compression: boolean;
  /** `COMPRESSION_MIN_BYTES`: the smallest answer compressed, in bytes as made. Default 1024. */
  compressionMinBytes: number;
  /** `EXECUTION_COMPILED`: run repeated queries as graphql-jit compiles them, else yoga's executor. Default true. */
  executionCompiled: boolean;
  /** `MAX_QUERY_BYTES`: longest query text accepted, in UTF-8 bytes; it bounds what tokens do not. Default 32768. */
  maxQueryBytes: number;
  /** `MAX_VARIABLES_BYTES`: largest variables accepted, in bytes of JSON; larger gets 413 `VARIABLES_TOO_LARGE`. Default 16384. */
  maxVariablesBytes: number;
  /** `GATEWAY_API_KEYS`: keys a client must present; never logged or echoed. Default: none, the gateway is open. */
  apiKeys: readonly string[];
  /** `ADMIN_API_KEYS`: keys that may purge, none also a client key. Default: none, purging is off (404). */
  adminApiKeys: readonly string[];
  /** `RATE_LIMIT_PER_MINUTE`: requests a client (its key, else its address) may make a minute. Default 0: no limit. */
  rateLimitPerMinute: number;
  /** `TRUST_PROXY`: the proxies whose `X-Forwarded-For` names the client. Default: none, the socket's address. */
  trustProxy: TrustProxy | undefined;
  /** `LOG_LEVEL`: pino level. Default `info`. */
  logLevel: LogLevel;
  /** `LOG_FORMAT`: `json` lines, `pretty` (pino-pretty, for a person), or `auto`: pretty when stdout is a terminal. Default `auto`. */
  logFormat: LogFormat;
  /** `REQUEST_LOG_SAMPLE_PERCENT`: share of fast successful requests logged; failed or slow ones always are. Default 100. */
  requestLogSamplePercent: number;
  /** `REQUEST_LOG_SLOW_MS`: a request slower than this always gets its log line. Default 1000. */
  requestLogSlowMs: number;
  /** `DEMO_LATENCY_MS`: latency of the demo-mode mock upstream, in ms. Default 5. */
  demoLatencyMs: number;
  /** `DEMO_SALES_PER_MINUTE`: items the demo mock sells a minute at each site. Default 60 in demo mode, else 0. */
  demoSalesPerMinute: number;
  /** `MAX_QUERY_DEPTH`: deepest nesting of fields; fragments add no level. Default 6, the contract's deepest path. */
  maxQueryDepth: number;
  /** `MAX_ALIASES`: aliases in an operation (aliases of `__typename` not counted). Default 15. */
  maxAliases: number;
  /** `MAX_QUERY_TOKENS`: lexical tokens in a document (names, punctuation, values; not comments). Default 1000. */
  maxQueryTokens: number;
  /** `MAX_DIRECTIVES`: directives (`@include`, `@skip` …) in an operation. Default 50. */
  maxDirectives: number;
  /** `MAX_QUERY_COST`: static cost of an operation, as graphql-armor counts it. Default 1000. */
  maxQueryCost: number;
  /** `EXPOSE_QUERY_LIMITS`: whether a refusal names the limit and the operation's value. Default false. */
  exposeQueryLimits: boolean;
  /** `PERSISTED_OPERATIONS_FILE`: allow-list mode, only these operations run, by id. Default: unset, any runs. */
  persistedOperations: PersistedOperations | undefined;
  /** `CSRF_PREVENTION`: require a preflight-forcing header on GET and simple POST requests. Default false. */
  csrfPrevention: boolean;
  /** `CORS_ORIGINS`: browser origins allowed; `['*']` any, `[]` none. Default `*`, none in production. */
  corsOrigins: readonly string[];
  /** `BATCHING_LIMIT`: operations in one batched (JSON array) request at most; 0 turns batching off. Default 0. */
  batchingLimit: number;
  /** `GRAPHIQL`: serve GraphiQL to browsers on /graphql. Default true, but false when `NODE_ENV` is `production`. */
  graphiql: boolean;
  /** `INTROSPECTION`: answer `__schema` and `__type` (and suggestions). Default true, false in production. */
  introspection: boolean;
  /** Redis (base/config/redis.ts): `REDIS_URL`, `REDIS_SENTINELS` or `REDIS_CLUSTER_NODES`; `undefined` (none set): single-process mode. */
  redis: RedisConfig | undefined;
  /** The catalog index behind the fields the upstream cannot answer (catalog/catalog-index.ts). */
  index: IndexConfig;
  /** `SITE_TIMEZONE`: IANA time zone of the sites' opening hours (`openAt`, `isOpen`). Default `Asia/Shanghai`. */
  siteTimeZone: string;
  /** OpenTelemetry traces (`OTEL_*`, base/config/tracing.ts); `undefined`: off, no OTLP endpoint set. */
  tracing: TracingConfig | undefined;
  /** Live stock: the `Subscription` fields (live/live-stock.ts). */
  live: LiveConfig;
  /** GraphQL over WebSocket: what one socket, and one client, may hold (doors/ws/websocket.ts). */
  webSocket: WebSocketLimits;
}

/** The configuration with the upstream settled (main.ts fills it in demo mode): what the gateway runs on. */
export type GatewayConfig = Omit<Config, 'upstream'> & { upstream: UpstreamConfig };

/** What one WebSocket, and one client's sockets, may hold. */
export interface WebSocketLimits {
  /** `WS_MAX_OPERATIONS_PER_SOCKET`: operations running at once on one socket. Default 100. */
  maxOperationsPerSocket: number;
  /** `WS_MAX_BUFFERED_BYTES`: bytes sent and not yet read before the socket is closed (1008). Default 4 MiB. */
  maxBufferedBytes: number;
  /** `WS_MAX_SOCKETS_PER_CLIENT`: open sockets of one client (its API key, else its IP address); one more is refused with 429. Default 20. */
  maxSocketsPerClient: number;
}

/** Live stock: how often watched sites are polled, and how many subscriptions may be open. */
export interface LiveConfig {
  /** `LIVE_POLL_S`: how often watched sites are read from the upstream, in s (0.1 to 3600). Default 10. */
  pollS: number;
  /** `LIVE_MAX_SUBSCRIPTIONS`: live subscriptions open at once, in all (1 to 1,000,000). Default 10,000. */
  maxSubscriptions: number;
  /** `LIVE_MAX_SUBSCRIPTIONS_PER_CLIENT`: live subscriptions one client may hold open. Default 100. */
  maxSubscriptionsPerClient: number;
  /** `LIVE_MAX_WATCHED_KEYS`: distinct sites (or all) this gateway's subscriptions may watch. Default 2000. */
  maxWatchedKeys: number;
  /** `LIVE_MAX_WATCHED_KEYS_PER_CLIENT`: distinct sites one client's subscriptions may watch. Default 200. */
  maxWatchedKeysPerClient: number;
}

/** The catalog index. */
export interface IndexConfig {
  /** `INDEX_ENABLED`: keep the catalog in memory for the fields the upstream cannot answer. Default true. */
  enabled: boolean;
  /** `INDEX_REFRESH_S`: how old the index may get before a background refresh, in s. Default: the TTLs. */
  refreshS: number | undefined;
  /** `INDEX_WARM_ON_START`: build the index at start instead of on first use. Default false. */
  warmOnStart: boolean;
}
