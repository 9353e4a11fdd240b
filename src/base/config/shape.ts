/**
 * What the configuration holds: every setting, with the variable it comes from, its unit and its
 * default. config.ts reads and checks them; this file only names them, so that the reading stays
 * short enough to follow.
 */
import type { PersistedOperations } from './persisted-operations.js';
import type { TracingConfig } from './tracing.js';
import type { TrustProxy } from './trust-proxy.js';
import type { RedisConfig } from './redis.js';

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
  /**
   * `MAX_UPSTREAM_CALLS_PER_OPERATION`: the upstream calls one operation may cause, estimated
   * before it runs and counted while it runs. Default 100: every single query shape of the
   * contract at MAX_PAGE_SIZE with full nesting fits at benchmark scale (2,000 sites, 1,000
   * products); dozens of aliased deep lists do not.
   */
  maxUpstreamCallsPerOperation: number;
  /**
   * `MAX_ITEMS_PER_OPERATION`: list entries one operation may return, counted before it runs by
   * multiplying list bounds (`first`, `pageSize`) through nesting; a list with no bound (points,
   * lanes) counts as 5. Default 50000: a dozen deep 100-site pages (about 37,000) fit, fifteen
   * aliased `searchProducts(first: 100) { availability(first: 1000) }` (1.5 million) do not.
   */
  maxItemsPerOperation: number;
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
  /**
   * `MAX_DECODING_BYTES`: bytes that compressed request bodies being decoded may hold at once, all
   * of them together: their decoded bytes so far and what each one's decoder holds (64 KiB for
   * gzip or deflate, 256 KiB for zstd, a brotli stream's ring buffer as its first bytes declare
   * it, up to its 16 MiB window). A body that would pass it gets 503 `SERVER_BUSY` with
   * `Retry-After`, unless it is the only one (a budget below `MAX_REQUEST_BODY_BYTES` still lets
   * one large body through at a time). Default 33554432 (32 MiB).
   */
  maxDecodingBytes: number;
  /**
   * `RESPONSE_CACHE_MAX_BYTES`: bytes of whole answers kept for identical requests (each until
   * the first of its data stops being fresh). Default 33554432 (32 MiB, within the 250 MB RSS
   * budget beside a whole cached catalog); 0 turns it off.
   */
  responseCacheMaxBytes: number;
  /**
   * `COMPRESSION`: send whole JSON answers compressed (brotli, zstd or gzip, as `Accept-Encoding`
   * asks); false behind a proxy that compresses itself. Default true.
   */
  compression: boolean;
  /** `COMPRESSION_MIN_BYTES`: the smallest answer compressed, in bytes as made. Default 1024. */
  compressionMinBytes: number;
  /**
   * `EXECUTION_COMPILED`: run a query as the function graphql-jit compiles for it once its text
   * comes back, instead of yoga's executor; `@defer`/`@stream` and what does not compile still run
   * on the latter. The same answers either way, but for the order of each object's fields
   * (graph/execution/compile.ts). Default true.
   */
  executionCompiled: boolean;
  /**
   * `MAX_QUERY_BYTES`: longest query text accepted, in UTF-8 bytes; longer gets 413
   * `QUERY_TOO_LARGE`. Comments and string literals cost no tokens, so this bounds what a parsed
   * and cached document can weigh. Default 32768.
   */
  maxQueryBytes: number;
  /** `MAX_VARIABLES_BYTES`: largest variables accepted, in bytes of JSON; larger gets 413 `VARIABLES_TOO_LARGE`. Default 16384. */
  maxVariablesBytes: number;
  /**
   * `GATEWAY_API_KEYS`: comma-separated keys a client must present as `Authorization: Bearer
   * <key>` or `x-api-key: <key>`; each at least 16 visible ASCII characters (no spaces or
   * commas); never logged or echoed. Default: none, the gateway is open.
   */
  apiKeys: readonly string[];
  /**
   * `ADMIN_API_KEYS`: comma-separated keys that may purge (`POST /admin/purge`, README "Purging"),
   * presented as client keys are; same rules, and none may also be a client key. Default: none,
   * the purge endpoint is off (404).
   */
  adminApiKeys: readonly string[];
  /**
   * `RATE_LIMIT_PER_MINUTE`: requests a client (its API key, else its IP address) may make per
   * minute, refilled continuously, with a burst of as many. Default 0: no limit.
   */
  rateLimitPerMinute: number;
  /**
   * `TRUST_PROXY`: the reverse proxies whose `X-Forwarded-For` names the client, for the limits
   * per client: a hop count (the proxies nearest to the gateway) or addresses and CIDR ranges
   * (request/client-address.ts). Default: none, the header is ignored and the client is
   * the socket's address.
   */
  trustProxy: TrustProxy | undefined;
  /** `LOG_LEVEL`: pino level. Default `info`. */
  logLevel: LogLevel;
  /**
   * `REQUEST_LOG_SAMPLE_PERCENT`: the share of successful requests, answered within
   * `REQUEST_LOG_SLOW_MS`, that get their log line (request/log.ts); a failed or slow one always
   * does. Default 100: every request.
   */
  requestLogSamplePercent: number;
  /** `REQUEST_LOG_SLOW_MS`: a request slower than this always gets its log line. Default 1000. */
  requestLogSlowMs: number;
  /** `DEMO_LATENCY_MS`: latency of the demo-mode mock upstream, in ms. Default 5. */
  demoLatencyMs: number;
  /**
   * `DEMO_SALES_PER_MINUTE`: items the demo-mode mock sells a minute at each site in service,
   * restocking a lane 30 s after it runs out (mock-upstream/sales.ts). Default 60 in demo mode
   * (no `UPSTREAM_BASE_URL`), 0 otherwise, where there is no mock to sell from.
   */
  demoSalesPerMinute: number;
  /**
   * `MAX_QUERY_DEPTH`: deepest nesting of fields in an operation; fragments add no level. Default
   * 6, the contract's deepest path (`node → … on Point → site → points → cargoLanes → product →
   * productName`), so the point → site → points cycle cannot go further.
   */
  maxQueryDepth: number;
  /** `MAX_ALIASES`: aliases in an operation (aliases of `__typename` not counted). Default 15. */
  maxAliases: number;
  /** `MAX_QUERY_TOKENS`: lexical tokens in a document (names, punctuation, values; not comments). Default 1000. */
  maxQueryTokens: number;
  /** `MAX_DIRECTIVES`: directives (`@include`, `@skip` …) in an operation. Default 50. */
  maxDirectives: number;
  /**
   * `MAX_QUERY_COST`: static cost of an operation (graphql-armor's: 2 per object field, 1 per
   * scalar, × 1.5 per level of depth). Default 1000, about 1.6 × the cost of asking for every
   * field of every type along every path of the contract at once.
   */
  maxQueryCost: number;
  /** `EXPOSE_QUERY_LIMITS`: whether a refusal names the limit and the operation's value. Default false. */
  exposeQueryLimits: boolean;
  /**
   * `PERSISTED_OPERATIONS_FILE`: allow-list mode; a JSON file of persisted documents, read at
   * start-up and again on SIGHUP, in the format `PERSISTED_OPERATIONS_FORMAT` names (`codegen`,
   * `apollo`, `relay`; default `auto`, detected: persisted-formats.ts). Only those operations
   * run, by id; automatic persisted queries cannot register. A file over
   * `PERSISTED_OPERATIONS_MAX_BYTES` (bytes, default 4 MiB, 1 KiB to 256 MiB) stops start-up and is
   * not read on a reload: its JSON is parsed whole, in one block of the event loop.
   * Default: unset, any document runs and automatic persisted queries are on.
   */
  persistedOperations: PersistedOperations | undefined;
  /** `CSRF_PREVENTION`: require a preflight-forcing header on GET and simple POST requests. Default false. */
  csrfPrevention: boolean;
  /**
   * `CORS_ORIGINS`: browser origins allowed to call the gateway; `['*']` any, `[]` none (`none`).
   * Default `*`, but none when `NODE_ENV` is `production`.
   */
  corsOrigins: readonly string[];
  /** `BATCHING_LIMIT`: operations in one batched (JSON array) request at most; 0 turns batching off. Default 0. */
  batchingLimit: number;
  /** `GRAPHIQL`: serve GraphiQL to browsers on /graphql. Default true, but false when `NODE_ENV` is `production`. */
  graphiql: boolean;
  /**
   * `INTROSPECTION`: answer `__schema` and `__type`; when off, "Did you mean …" suggestions are
   * hidden too. Default true, but false when `NODE_ENV` is `production`.
   */
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
  /** GraphQL over WebSocket: what one socket, and one client, may hold (edge/ws/websocket.ts). */
  webSocket: WebSocketLimits;
}

/** The configuration with the upstream settled (main.ts fills it in demo mode): what the gateway runs on. */
export type GatewayConfig = Omit<Config, 'upstream'> & { upstream: UpstreamConfig };

/** What one WebSocket, and one client's sockets, may hold. */
export interface WebSocketLimits {
  /**
   * `WS_MAX_OPERATIONS_PER_SOCKET`: operations (queries and subscriptions) running or being
   * admitted at once on one socket; one more is refused with `TOO_MANY_OPERATIONS`. Default 100.
   */
  maxOperationsPerSocket: number;
  /**
   * `WS_MAX_BUFFERED_BYTES`: bytes sent to a socket and not yet taken by its client; above it,
   * the client is not reading, and its socket is closed with 1008. Default 4194304 (4 MiB).
   */
  maxBufferedBytes: number;
  /** `WS_MAX_SOCKETS_PER_CLIENT`: open sockets of one client (its API key, else its IP address); one more is refused with 429. Default 20. */
  maxSocketsPerClient: number;
}

/** Live stock: how often watched sites are polled, and how many subscriptions may be open. */
export interface LiveConfig {
  /**
   * `LIVE_POLL_S`: how often the sites any subscriber watches are read from the upstream, once
   * for all of them, in s (0.1 to 3600). Default 10.
   */
  pollS: number;
  /** `LIVE_MAX_SUBSCRIPTIONS`: live subscriptions open at once, in all (1 to 1,000,000). Default 10,000. */
  maxSubscriptions: number;
  /**
   * `LIVE_MAX_SUBSCRIPTIONS_PER_CLIENT`: live subscriptions one client (its API key, else its IP
   * address) may hold open at once (1 to 1,000,000). Default 100.
   */
  maxSubscriptionsPerClient: number;
  /**
   * `LIVE_MAX_WATCHED_KEYS`: distinct things (a site, or every site) the live subscriptions of
   * this gateway may watch at once (1 to 1,000,000). Default 2000.
   */
  maxWatchedKeys: number;
  /**
   * `LIVE_MAX_WATCHED_KEYS_PER_CLIENT`: distinct things one client's live subscriptions may watch
   * at once (1 to 1,000,000). Default 200: two `stockAlerts` of 100 named sites.
   */
  maxWatchedKeysPerClient: number;
}

/** The catalog index. */
export interface IndexConfig {
  /**
   * `INDEX_ENABLED`: keep the whole catalog in memory to answer `sitesNear`, `searchProducts`,
   * `Product.availability`/`totalStock`, `City.sites` and the `Query.sites` filters. Default true;
   * false (for very large catalogs) makes those fields answer `FEATURE_DISABLED`.
   */
  enabled: boolean;
  /**
   * `INDEX_REFRESH_S`: how old the index may get before a query refreshes it in the background,
   * in s. Default: the sites TTL for sites and stock, the products TTL for products; set, both.
   */
  refreshS: number | undefined;
  /** `INDEX_WARM_ON_START`: build the index at start instead of on first use. Default false. */
  warmOnStart: boolean;
}
