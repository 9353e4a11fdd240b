/**
 * Scenario (f), scale-out: the mixed workload (`../workloads/mixed.ts`) spread evenly over N
 * gateway replicas that share one Redis. Two runs per replica count, each on fresh replicas and
 * a flushed Redis (`../measure/scale-out.ts`):
 *
 * - Shared cache (a sites TTL longer than the run): a fixed number of requests, warm-up first, and every upstream
 *   call from the cold start on, warm-up included, per 1,000 requests sent. A fixed count
 *   rather than a duration because the replicas share one core here: more replicas serve fewer
 *   requests per second, and over a fixed time the same catalog fetched once would then look
 *   dearer per 1,000 requests for that reason alone.
 * - Token expiry (1 s TTLs, so the load keeps reaching the upstream): a warm-up, then
 *   `tokenExpiryUnderLoad`.
 */
import { SCALE_OUT_EXPIRY_SECONDS, SCALE_OUT_MAX_SECONDS, SCALE_OUT_REQUESTS, SCALE_OUT_WARMUP_REQUESTS, WARMUP_SECONDS } from '../config.js';
import { round, runLoad, type LoadResult } from '../load/load.js';
import { apiCalls, type BenchMock } from '../processes/mock.js';
import { randomMixedBody, type MixKeys } from '../workloads/mixed.js';
import { tokenExpiryUnderLoad, type ExpiryResult } from './mixed.js';

/** The shared-cache run: load figures of the measured part, upstream calls of the whole. */
export interface SharedCacheResult extends LoadResult {
  warmupRequestsSent: number;
  /** API calls from the cold start (warm-up included) until the upstream was quiet after the run. */
  upstreamCalls: number;
  /** Per 1,000 requests sent, warm-up included. */
  upstreamCallsPer1000Requests: number;
  upstreamCallsByPath: Record<string, number>;
}

/** What the replicas' own metrics said after a run. */
export interface ReplicaHealth {
  /**
   * Failed Redis operations over all replicas (`gateway_redis_errors_total`). Each fell back to
   * in-process caching or the replica's own token: above 0, the replicas did not fully share.
   */
  redisErrors: number;
  /** The same, by operation (`cache_read`, `token_lock`, …): which fallbacks happened. */
  redisErrorsByOperation: Record<string, number>;
}

/** One replica count. */
export interface ScaleOutResult {
  replicas: number;
  sharedCache: SharedCacheResult & ReplicaHealth;
  expiry: ExpiryResult & ReplicaHealth;
}

/** The shared-cache run over `graphqlUrls` (one per replica), which must be fresh and share an empty Redis. */
export async function sharedCacheLoad(graphqlUrls: string[], mock: BenchMock, keys: MixKeys): Promise<SharedCacheResult> {
  const nextBody = (): string => randomMixedBody('gateway', keys);
  await mock.reset();
  const warmup = await runLoad({ url: graphqlUrls, amount: SCALE_OUT_WARMUP_REQUESTS, seconds: SCALE_OUT_MAX_SECONDS, nextBody, checkBodies: true });
  const result = await runLoad({ url: graphqlUrls, amount: SCALE_OUT_REQUESTS, seconds: SCALE_OUT_MAX_SECONDS, nextBody, checkBodies: true });
  // As in `mixedLoad`: requests open when a run stopped still finish their upstream calls.
  await mock.untilQuiet();
  const byPath = await mock.calls();
  const upstreamCalls = apiCalls(byPath);
  const sent = warmup.requestsSent + result.requestsSent;
  return {
    ...result,
    clientErrors: warmup.clientErrors + result.clientErrors,
    warmupRequestsSent: warmup.requestsSent,
    upstreamCalls,
    upstreamCallsPer1000Requests: sent === 0 ? 0 : round((upstreamCalls / sent) * 1000, 1),
    upstreamCallsByPath: byPath,
  };
}

/**
 * The token-expiry run over `graphqlUrls` (fresh replicas with short cache TTLs), after an
 * unmeasured warm-up: a run this short would otherwise expire the token while cold replicas
 * are still starting up, not under the steady load the target is about.
 */
export async function expiryLoad(graphqlUrls: string[], mock: BenchMock, keys: MixKeys): Promise<ExpiryResult> {
  await runLoad({ url: graphqlUrls, seconds: WARMUP_SECONDS, nextBody: () => randomMixedBody('gateway', keys) });
  await mock.untilQuiet();
  return tokenExpiryUnderLoad(graphqlUrls, mock, keys, SCALE_OUT_EXPIRY_SECONDS);
}
