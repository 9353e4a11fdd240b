/**
 * Scale-out: with Redis (`REDIS_URL`, `REDIS_SENTINELS` or `REDIS_CLUSTER_NODES`), the replicas
 * behind a load balancer share one cache and one upstream token through it, so upstream load and
 * token requests stay flat as replicas are added. Without it, none of this runs and the gateway
 * is a single process.
 *
 * Redis keys (all under `vg:v1:`, the format version: a release that changes what is stored
 * bumps it, and never reads the old shapes):
 * - `vg:v1:cache:<upstream>:{<cache key>}` cache entries (cache/entry-codec.ts), `<upstream>`
 *   a hash of UPSTREAM_BASE_URL, so fleets in front of different upstreams never mix;
 * - `vg:v1:answer:<upstream>:<scope>:{<response-cache key>}` whole answers (cache/answer-codec.ts),
 *   `<scope>` a hash of what decides an answer besides its key (response-cache/scope.ts),
 *   so that replicas of two releases or settings never serve each other's answers;
 * - `vg:v1:answers:{<upstream>:<scope>}:…` the index of the answers (cache/answer-index.ts): their
 *                                          costs within `REDIS_RESPONSE_CACHE_MAX_BYTES`, their order,
 *                                          and per tag (`…:tag:<tag>`) the keys of the answers built
 *                                          from it (request/tags.ts), for a purge to find them;
 * - channel `vg:v1:purge:<upstream>`       the purges a replica took (response-cache/purge.ts), for the others
 *                                          to drop their own copies;
 * - `vg:v1:token:{<client>}`               the token (a hash of token URL, client id and scope);
 * - `<either>:lock`                        the lock of one replica's fill or token request;
 * - `vg:v1:ratelimit:<upstream>:{<client>}` a client's rate-limit bucket (a hash of its API key's
 *                                          fingerprint or its address; edge/rate-limit/fleet-buckets.ts);
 * - channel `vg:v1:filled`                 announcements of finished fills (redis/notices.ts);
 * - `vg:v1:live:{<upstream>}:lease:<key>`  the lease of the replica that polls a live key for the
 *                                          fleet, `<key>` `site:<code>` or `all` (live/fleet-poller.ts);
 * - channel `vg:v1:live:{<upstream>}:reads` the reads the lease holders publish (redis/live-bus.ts).
 *
 * Eviction: the token and the locks have no expiry (their deadlines are in their values), every
 * other key has one, and Redis must evict only keys that have one (`maxmemory-policy volatile-lru`;
 * redis/eviction-policy.ts warns of another): a full Redis then evicts cache entries, never the
 * fleet's token or a lock. The shared answers, which any client can multiply, have a budget of
 * their own besides, so that they never fill Redis and push out the data entries.
 *
 * Hash tags, for Redis Cluster: it puts each key in a slot by its name, or by the part in `{…}`
 * when there is one, and a script or transaction may only name keys of one slot. So every key
 * puts in braces the part that names one thing, and what goes with that thing keeps the tag: a
 * lock is its key + `:lock`, the leases of one upstream share `{<upstream>}` because one
 * script claims them all, and the answers' index shares `{<upstream>:<scope>}` because one script
 * keeps it (the answers themselves keep their own slots). Never brace a constant part but for
 * such keys, which a script must see together: every key would land on one node.
 * Channels are not keys (a PUBLISH reaches every node). The tags came without a new version: the
 * values' shapes are unchanged, and the old names are simply never read (the first replicas of
 * this release fill their keys and take a token once more, as with a new Redis).
 */
import { createHash } from 'node:crypto';
import type { Cache } from '../cache/cache.js';
import type { LruCacheOptions } from '../cache/lru-cache.js';
import { createRedisAnswers, type SharedAnswers } from '../cache/redis-answers.js';
import { createRedisLevel } from '../cache/redis-level.js';
import { createLruCache } from '../cache/lru-cache.js';
import type { RedisConfig, UpstreamConfig } from '../base/config/config.js';
import type { Clock } from '../base/clock.js';
import type { Logger } from '../base/logger.js';
import { createRedisConnection } from '../redis/connection.js';
import { checkEvictionPolicy } from '../redis/eviction-policy.js';
import { createLiveBus, type LiveBus } from '../redis/live-bus.js';
import { createPurgeBus, type PurgeBus } from '../redis/purge-bus.js';
import { createFleetBuckets, type FleetBucketOptions, type FleetBuckets } from '../edge/rate-limit/fleet-buckets.js';
import { createRedisTokenStore } from '../upstream/token/redis-store.js';
import type { TokenStore } from '../upstream/token/store.js';

export type RedisState = 'up' | 'down';

export interface ScaleOut {
  /** The replica's cache: `options` for its in-process level, Redis under it. */
  cache(options: LruCacheOptions): Cache;
  /** The whole answers the replicas share, behind each one's response cache, for answers of `scope`; none when their budget is 0. */
  answers(scope: string): SharedAnswers | undefined;
  /** Where the token manager shares the token. */
  readonly tokenStore: TokenStore;
  /** Where the live pollers of the replicas share the polling (live/fleet-poller.ts). */
  readonly liveBus: LiveBus;
  /** Where a purge taken by one replica reaches the others (response-cache/purge.ts). */
  readonly purgeBus: PurgeBus;
  /** The rate limit's buckets, one per client for the whole fleet (edge/rate-limit/fleet-buckets.ts). */
  rateLimitBuckets(options: Omit<FleetBucketOptions, 'prefix'>): FleetBuckets;
  /** Whether Redis is in use now (`/readyz`, `gateway_redis_up`). */
  state(): RedisState;
  close(): Promise<void>;
}

export interface ScaleOutSettings {
  upstream: UpstreamConfig;
  /** TOKEN_TIMEOUT_MS: the token refresh lock outlives one token request. */
  tokenTimeoutMs: number;
  /** The gateway's clock: its wall face dates the shared tokens, data and answers. */
  clock: Clock;
  logger: Logger;
  /** Told of every failed Redis operation, by name (metrics). */
  onError(operation: string): void;
}

const VERSION_PREFIX = 'vg:v1:';
/** Added to TOKEN_TIMEOUT_MS for the refresh lock: the request, then storing its token. */
const TOKEN_LOCK_MARGIN_MS = 1000;

export function createScaleOut(redis: RedisConfig, settings: ScaleOutSettings): ScaleOut {
  const { upstream, logger, clock } = settings;
  const connection = createRedisConnection({
    topology: redis.topology,
    commandTimeoutMs: redis.commandTimeoutMs,
    channel: `${VERSION_PREFIX}filled`,
    logger,
    onError: settings.onError,
  });
  const tokenStore = createRedisTokenStore({
    connection,
    key: `${VERSION_PREFIX}token:{${digest(upstream.tokenUrl, upstream.clientId, upstream.scope ?? '')}}`,
    waitMs: settings.tokenTimeoutMs + TOKEN_LOCK_MARGIN_MS,
    clock,
  });
  const liveBus = createLiveBus(connection, { prefix: `${VERSION_PREFIX}live:{${digest(upstream.baseUrl)}}:` });
  void checkEvictionPolicy(connection, logger);
  return {
    cache(options) {
      const shared = createRedisLevel({
        connection,
        prefix: `${VERSION_PREFIX}cache:${digest(upstream.baseUrl)}:`,
        keepPastTtlMs: Math.max(options.staleWhileRevalidateMs ?? 0, options.staleIfErrorMs ?? 0),
        fillWaitMs: redis.fillWaitMs,
        clock,
        logger,
      });
      return createLruCache({ ...options, shared });
    },
    answers: (scope) => redis.answersMaxBytes === 0 ? undefined : createRedisAnswers({
      connection, logger, clock,
      prefix: `${VERSION_PREFIX}answer:${digest(upstream.baseUrl)}:${digest(scope)}:`,
      indexPrefix: `${VERSION_PREFIX}answers:{${digest(upstream.baseUrl)}:${digest(scope)}}:`,
      maxBytes: redis.answersMaxBytes,
    }),
    tokenStore,
    liveBus,
    purgeBus: createPurgeBus(connection, `${VERSION_PREFIX}purge:${digest(upstream.baseUrl)}`),
    rateLimitBuckets: (options) => createFleetBuckets(connection, { ...options, prefix: `${VERSION_PREFIX}ratelimit:${digest(upstream.baseUrl)}:` }),
    state: () => (connection.up ? 'up' : 'down'),
    async close() {
      // The live leases this replica gave up on its way out: the others take them over at once.
      await liveBus.settle();
      await connection.close();
    },
  };
}

// Private: a short, stable name for what `parts` identify (not secret, but not spelled out).
function digest(...parts: string[]): string {
  return createHash('sha256').update(parts.join('\n')).digest('hex').slice(0, 12);
}
