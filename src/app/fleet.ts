/**
 * Scale-out: with Redis, the replicas share one cache, one upstream token and their answers, so
 * upstream load and token requests stay flat as replicas are added; without it, none of this runs.
 *
 * Keys, all under `vg:v1:` (bumped when a stored shape changes): `cache:<upstream>:{<key>}`,
 * `answer:<upstream>:<scope>:{<key>}` and their index `answers:{<upstream>:<scope>}:…`,
 * `token:{<client>}`, `<key>:lock`, `ratelimit:<upstream>:{<client>}`, `live:{<upstream>}:lease:<key>`;
 * channels `purge:<upstream>`, `filled` and `live:{<upstream>}:reads`. `<upstream>` and `<scope>`
 * are hashes, so fleets of different upstreams, releases or settings never mix.
 *
 * Only the token and the locks have no expiry, so with `volatile-lru` a full Redis evicts cache
 * entries, never those. Braces are Cluster hash tags: what one script must see together shares a
 * slot; a constant part is never braced, or every key would land on one node.
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
import { createFleetBuckets, type FleetBucketOptions, type FleetBuckets } from '../admission/buckets/fleet-buckets.js';
import { createRedisTokenStore } from '../upstream/token/redis-store.js';
import type { TokenStore } from '../upstream/token/store.js';

export type RedisState = 'up' | 'down';

export interface ScaleOut {
  /** The replica's cache: `options` for its in-process level, Redis under it. */
  cache(options: LruCacheOptions): Cache;
  /** The whole answers the replicas share for answers of `scope`; none when their budget is 0. */
  answers(scope: string): SharedAnswers | undefined;
  /** Where the token manager shares the token. */
  readonly tokenStore: TokenStore;
  /** Where the live pollers of the replicas share the polling. */
  readonly liveBus: LiveBus;
  /** Where a purge taken by one replica reaches the others. */
  readonly purgeBus: PurgeBus;
  /** The rate limit's buckets, one per client for the whole fleet. */
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
      // The leases given up on the way out, so the others take them over at once.
      await liveBus.settle();
      await connection.close();
    },
  };
}

// Private: a short, stable name for what `parts` identify (not secret, but not spelled out).
function digest(...parts: string[]): string {
  return createHash('sha256').update(parts.join('\n')).digest('hex').slice(0, 12);
}
