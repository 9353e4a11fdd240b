/**
 * Scenario (b) and the bare-server ceiling: requests/s and latency of one repeated request
 * over `CONNECTIONS` connections, after a priming request (which fills the caches and is
 * checked for errors) and an unmeasured warm-up. Upstream calls during the measured run are
 * counted (the mock's counters are reset when it starts): a warm gateway should make none.
 */
import { SECONDS, WARMUP_SECONDS } from '../config.js';
import { expectClean, postGraphQL } from '../load/graphql-client.js';
import { runLoad, type LoadResult } from '../load/load.js';
import { apiCalls, type BenchMock } from '../processes/mock.js';
import type { GraphQLRequest } from '../workloads/queries.js';

/** A warm load run and what the upstream saw meanwhile. */
export interface WarmResult extends LoadResult {
  upstreamCalls: number;
  /** The primed answer's body (the bare server replays these bytes). */
  body: Buffer;
}

/** Prime, warm up, then measure `request` against `graphqlUrl`. */
export async function warmLoad(graphqlUrl: string, request: GraphQLRequest, mock: BenchMock, what: string): Promise<WarmResult> {
  const primed = expectClean(await postGraphQL(graphqlUrl, request), what);
  const body = JSON.stringify(request);
  await runLoad({ url: graphqlUrl, seconds: WARMUP_SECONDS, body });
  await mock.untilQuiet();
  await mock.reset();
  const result = await runLoad({ url: graphqlUrl, seconds: SECONDS, body });
  return { ...result, upstreamCalls: apiCalls(await mock.calls()), body: primed.bytes };
}

/** The bare server's ceiling for the same bytes: it parses each body and answers from `path`'s Map (`../peers/bare-server.ts`). */
export async function bareLoad(url: string, body: string): Promise<LoadResult> {
  await runLoad({ url, seconds: WARMUP_SECONDS, body });
  return runLoad({ url, seconds: SECONDS, body });
}
