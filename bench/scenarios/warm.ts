/**
 * Scenario (b): requests/s and latency of one repeated request over `CONNECTIONS` connections,
 * after a priming request (which fills the caches and is checked for errors) and an unmeasured
 * warm-up; every answer of the measured run is read for GraphQL `errors`. Upstream calls during
 * the measured run are counted (the mock's counters are reset when it starts): a warm gateway
 * should make none. The load is wrk's when it is installed, as for the serving scenarios
 * (`../load/wrk.ts`); its ratio to the bare server comes from slices in turn (`interleaved.ts`).
 */
import { SECONDS, WARMUP_SECONDS } from '../config.js';
import { expectClean, postGraphQL } from '../load/graphql-client.js';
import type { LoadResult } from '../load/load.js';
import { runBodiesLoad } from '../load/wrk.js';
import { apiCalls, type BenchMock } from '../processes/mock.js';
import type { GraphQLRequest } from '../workloads/queries.js';

/** A warm load run and what the upstream saw meanwhile. */
export interface WarmResult extends LoadResult {
  upstreamCalls: number;
  /** The primed answer's body (the bare server replays these bytes). */
  body: Buffer;
  /** `performance.now()` when the priming answer arrived: everything it fetched is older than this. */
  primedAt: number;
}

/** Prime, warm up, then measure `request` against `graphqlUrl`. */
export async function warmLoad(graphqlUrl: string, request: GraphQLRequest, mock: BenchMock, what: string): Promise<WarmResult> {
  const primed = expectClean(await postGraphQL(graphqlUrl, request), what);
  const primedAt = performance.now();
  const bodies = [JSON.stringify(request)];
  await runBodiesLoad({ url: graphqlUrl, seconds: WARMUP_SECONDS, bodies, order: 'random' });
  await mock.untilQuiet();
  await mock.reset();
  const result = await runBodiesLoad({ url: graphqlUrl, seconds: SECONDS, bodies, order: 'random', checkBodies: true });
  return { ...result, upstreamCalls: apiCalls(await mock.calls()), body: primed.bytes, primedAt };
}
