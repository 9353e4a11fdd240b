/**
 * Scenario (f), scale-out: the mixed workload spread evenly over N gateway replicas that share
 * one Redis, after the same unmeasured warm-up as the mixed scenario, with every token expired
 * halfway (`tokenExpiryUnderLoad`). The replicas run with short cache TTLs: with the defaults
 * the warm-up caches what the workload asks for, a single replica then makes no upstream call
 * at all, and "flat within 10 %" of zero says nothing. With 1 s TTLs entries keep expiring, so
 * the upstream calls per 1,000 requests measure how well the replicas share their refills; and
 * calls keep meeting the dead token, so that token requests at expiry are exercised too.
 */
import { SCALE_OUT_SECONDS, WARMUP_SECONDS } from '../config.js';
import { runLoad } from '../load.js';
import { randomMixedBody, type MixKeys } from '../mixed-workload.js';
import type { BenchMock } from '../mock.js';
import { tokenExpiryUnderLoad, type ExpiryResult } from './mixed.js';

/** One replica count's run. */
export interface ScaleOutResult extends ExpiryResult {
  replicas: number;
  /**
   * Failed Redis operations over all replicas (`gateway_redis_errors_total`). Each fell back to
   * in-process caching or the replica's own token: above 0, the replicas did not fully share.
   */
  redisErrors: number;
}

/**
 * The mixed workload over `graphqlUrls` (one per replica; autocannon gives each the same number
 * of connections), warm-up first, tokens expired halfway through the measured run.
 */
export async function scaleOutLoad(graphqlUrls: string[], mock: BenchMock, keys: MixKeys): Promise<ExpiryResult> {
  await runLoad({ url: graphqlUrls, seconds: WARMUP_SECONDS, nextBody: () => randomMixedBody('gateway', keys) });
  // As in `mixedLoad`: the warm-up's last calls finish before counting starts (the next call resets).
  await mock.untilQuiet();
  return tokenExpiryUnderLoad(graphqlUrls, mock, keys, SCALE_OUT_SECONDS);
}
