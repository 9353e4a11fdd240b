/**
 * The gateway's warm runs (`BENCH_ONLY=warm` alone, or inside the whole run on the gateway that
 * ran cold): the 10-site deep page and the small query, each measured (`../scenarios/warm.ts`)
 * and right after its run loaded in turn with a bare server replaying the gateway's own answer
 * (`in-turn.ts`). A site's data is fresh for the sites' TTL from the priming request, shorter
 * than the deep page's run and slices together, so it is asked again once that has passed. The
 * deep page's slices read no answers (`Reads`): reading one of 45 KB costs wrk about 36 µs, most
 * of its core at the rate both servers reach.
 */
import { GATEWAY_SITES_TTL_MS, SMALL_GOODS_CODE, WARM_SITES } from '../config.js';
import { expectClean, postGraphQL } from '../load/graphql-client.js';
import type { BenchMock } from '../processes/mock.js';
import { clock } from '../processes/machine.js';
import { bareRunOf, type InterleavedResult } from '../scenarios/interleaved.js';
import type { ServingRun } from '../scenarios/serving.js';
import { warmLoad, type WarmResult } from '../scenarios/warm.js';
import { deepQuery, smallQuery, type GraphQLRequest } from '../workloads/queries.js';
import { inTurnWithBare, type BareSide } from './in-turn.js';

/** The gateway's warm runs, each with its slices in turn beside a bare server. */
export interface WarmMeasurements {
  warmDeep: WarmResult;
  warmSmall: WarmResult;
  /** The slices of each in turn with the bare server; its ratios are their medians. */
  inTurn: { deep: InterleavedResult; small: InterleavedResult };
  /** The bare server's slices taken together, for the tables (`bareRunOf`). */
  bare: { deep: ServingRun; small: ServingRun };
}

/** The warm deep page, then the small query, on the gateway at `url` (a `/graphql` endpoint). */
export async function measureWarm(url: string, mock: BenchMock): Promise<WarmMeasurements> {
  const deep = deepQuery('gateway', WARM_SITES);
  const small = smallQuery('gateway', SMALL_GOODS_CODE);
  step('warm deep query');
  const warmDeep = await warmLoad(url, deep, mock, 'gateway warm deep query');
  const deepInTurn = await beside(url, deep, warmDeep, { name: 'deep', keys: [deep.variables!], reads: 'neither' }, mock, warmDeep.primedAt + GATEWAY_SITES_TTL_MS + 1000);
  step('small query');
  const warmSmall = await warmLoad(url, small, mock, 'gateway small query');
  // A product's data is fresh for longer than the bench runs: nothing to wait for.
  const smallInTurn = await beside(url, small, warmSmall, { name: 'small', keys: mock.goodsCodes.map((goodsCode) => ({ goodsCode })), reads: 'both' }, mock, 0);
  return {
    warmDeep, warmSmall,
    inTurn: { deep: deepInTurn, small: smallInTurn },
    bare: { deep: bareRunOf(deepInTurn), small: bareRunOf(smallInTurn) },
  };
}

// Private: `request` on the gateway and on a bare server replaying the gateway's primed answer, in turn.
function beside(url: string, request: GraphQLRequest, run: WarmResult, route: Omit<BareSide, 'answer'>, mock: BenchMock, staleAt: number): Promise<InterleavedResult> {
  step(`${route.name}: the gateway and the bare server in turn`);
  const askEveryKey = async () => expectClean(await postGraphQL(url, request), `gateway ${route.name} query, asked again`);
  return inTurnWithBare(url, { ...route, answer: run.body }, [JSON.stringify(request)], mock, { staleAt, askEveryKey });
}

// Private: progress on stderr, as all.ts does.
function step(what: string): void {
  console.error(`bench: ${clock()} gateway: ${what}`);
}
