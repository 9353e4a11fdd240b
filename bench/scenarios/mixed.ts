/**
 * Scenario (c), the mixed workload (`../workloads/mixed.ts`), and scenario (d), token expiry
 * under that load: `expireAllTokens()` halfway through, then the token requests that follow and
 * every error a client saw (socket errors, non-2xx, answers with GraphQL `errors`).
 */
import { SECONDS, WARMUP_SECONDS } from '../config.js';
import { round, runLoad, type LoadResult } from '../load/load.js';
import { callTimings, type CallTimings } from '../load/round-trips.js';
import { apiCalls, callsBetween, type BenchMock } from '../processes/mock.js';
import { randomMixedBody, type MixKeys } from '../workloads/mixed.js';
import type { Flavour } from '../workloads/queries.js';

/** A mixed run and what it cost the upstream. */
export interface MixedResult extends LoadResult {
  upstreamCalls: number;
  upstreamCallsPer1000Requests: number;
  upstreamCallsByPath: Record<string, number>;
  /** Upstream call durations: a mean far above the mock's latency would mean the mock was the bottleneck. */
  upstreamTimings: CallTimings;
}

/** The mixed workload against `graphqlUrl`, after a short unmeasured warm-up. */
export async function mixedLoad(graphqlUrl: string, flavour: Flavour, mock: BenchMock, keys: MixKeys): Promise<MixedResult> {
  const nextBody = (): string => randomMixedBody(flavour, keys);
  await runLoad({ url: graphqlUrl, seconds: WARMUP_SECONDS, nextBody });
  await mock.untilQuiet();
  await mock.reset();
  const result = await runLoad({ url: graphqlUrl, seconds: SECONDS, nextBody, checkBodies: true });
  // Requests still open when the run stopped were sent, and their upstream calls go on: count
  // them all, against every request sent, so that slow servers are not flattered or penalised.
  await mock.untilQuiet();
  const byPath = await mock.calls();
  const upstreamCalls = apiCalls(byPath);
  return {
    ...result,
    upstreamCalls,
    upstreamCallsPer1000Requests: per1000(upstreamCalls, result.requestsSent),
    upstreamCallsByPath: byPath,
    upstreamTimings: callTimings((await mock.log()).spans),
  };
}

// Private: calls per 1,000 requests; one decimal below 100, where it matters.
function per1000(calls: number, requests: number): number {
  if (requests === 0) return 0;
  const value = (calls / requests) * 1000;
  return round(value, value < 100 ? 1 : 0);
}

/** Token expiry during a mixed run. */
export interface ExpiryResult extends LoadResult {
  /** Every API call of the run (those that met the dead token and their retries included). */
  upstreamCalls: number;
  upstreamCallsPer1000Requests: number;
  /** Seconds into the run when every token was expired. */
  expiredAtSeconds: number;
  tokenRequestsAfterExpiry: number;
  /** API calls after the expiry: proof that the load did reach the upstream with the dead token. */
  upstreamCallsAfterExpiry: number;
  /** Calls the upstream refused with "token is timeout". */
  tokenTimeoutAnswers: number;
}

/**
 * Run the mixed workload against `graphqlUrl` (or several replicas' URLs, see `runLoad`) for
 * `seconds`, expiring every token halfway. The gateway should be one whose caches keep sending
 * calls upstream (see `EXPIRY_CACHE_TTL_S`), or nothing meets the dead token. Upstream calls are
 * counted as in `mixedLoad`: from here until the upstream is quiet after the run.
 */
export async function tokenExpiryUnderLoad(graphqlUrl: string | string[], mock: BenchMock, keys: MixKeys, seconds = SECONDS): Promise<ExpiryResult> {
  await mock.reset();
  let atExpiry: Record<string, number> = {};
  const result = await runLoad({
    url: graphqlUrl,
    seconds,
    nextBody: () => randomMixedBody('gateway', keys),
    checkBodies: true,
    midRun: {
      at: seconds / 2,
      action: async () => {
        atExpiry = await mock.calls();
        await mock.expireAllTokens();
      },
    },
  });
  await mock.untilQuiet();
  const total = await mock.calls();
  const after = callsBetween(atExpiry, total);
  return {
    ...result,
    upstreamCalls: apiCalls(total),
    upstreamCallsPer1000Requests: per1000(apiCalls(total), result.requestsSent),
    expiredAtSeconds: seconds / 2,
    tokenRequestsAfterExpiry: after['/oauth/token'] ?? 0,
    upstreamCallsAfterExpiry: apiCalls(after),
    tokenTimeoutAnswers: await mock.tokenTimeouts(),
  };
}
