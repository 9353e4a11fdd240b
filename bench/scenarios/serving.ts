/**
 * One serving scenario on one peer: a checked warm-up (every key once, each answer's
 * `data` compared with the mock's, which also fills the peer's caches), an unmeasured load
 * warm-up (`SERVING_WARMUP_SECONDS`), then `SECONDS` of load with a random key each request
 * (the pages: the same request each time). Upstream calls are counted during the measured run: warm data makes none.
 *
 * Every peer gets the same keys in the same random way, and the load generator the same work but one:
 * request bodies are serialised beforehand, once per key, drawn at random for each request
 * (`sitesNear`: as many fresh random queries as the run can send, in turn, so that none repeats),
 * and every answer is read for GraphQL `errors` (`checkBodies`), but the bare server's: it
 * answers known bytes, and reading 256 KB deep pages bounded wrk's core before the server's (the
 * bare figure is the ceiling, so a generator that reads less only makes the ratios stricter). The
 * load is wrk's when it is installed, else autocannon's (`../load/wrk.ts`).
 */
import { BARE_WARMUP_SECONDS, SECONDS, SERVING_WARMUP_SECONDS, SITES_NEAR_BODIES_PER_SECOND, SITES_NEAR_CHECKS } from '../config.js';
import type { LoadResult } from '../load/load.js';
import { runBodiesLoad, type BodiesLoadOptions } from '../load/wrk.js';
import { apiCalls, type BenchMock } from '../processes/mock.js';
import { checkAnswers, type CheckResult } from '../workloads/check.js';
import type { GraphQLRequest } from '../workloads/queries.js';
import { everyKey, gatewayRequest, randomKey, type ServingKey, type ServingScenario } from '../workloads/serving.js';

/** A peer as the serving scenarios see it. */
export interface ServingPeer {
  /** Where requests are posted (for the bare server, the path of the scenario's answers). */
  url: string;
  /** The peer's request for `key`; null when it has no such query (the scenario is then not run). */
  request(scenario: ServingScenario, key: ServingKey): GraphQLRequest | null;
  /** False for the bare server, which answers every key with the same bytes: nothing to check. */
  checked: boolean;
}

/** A measured serving run. */
export interface ServingRun extends LoadResult {
  /** The checked warm-up; null for the bare server. */
  check: CheckResult | null;
  /** API calls during the measured run (null for the bare server). */
  upstreamCalls: number | null;
}

/** A run that did not happen, and why. */
export interface NotRun {
  notRun: string;
}

/** A run, or why there is none. */
export type ServingOutcome = ServingRun | NotRun;

/** The expected `data` of each key, from the mock (memoised by the caller where keys repeat). */
export type ExpectedOf = (scenario: ServingScenario, keys: readonly ServingKey[]) => Promise<unknown[]>;

/** Check every key of `scenario` on `peer`, then measure it under load; `onChecked` is told when the check ends. */
export async function servingRun(peer: ServingPeer, scenario: ServingScenario, mock: BenchMock, expectedOf: ExpectedOf, onChecked?: () => void): Promise<ServingOutcome> {
  const keys = everyKey(scenario, mock, SITES_NEAR_CHECKS);
  const requests = keys.map((key) => peer.request(scenario, key));
  if (requests.some((request) => request === null)) return { notRun: `no ${scenario} query for this peer` };
  let check: CheckResult | null = null;
  if (peer.checked) {
    const expected = await expectedOf(scenario, keys);
    check = await checkAnswers(peer.url, requests.map((request, i) => ({ key: keys[i], request: request!, expected: expected[i] })));
  }
  onChecked?.();
  const bodiesFor = (seconds: number) => loadBodies(peer, scenario, mock, requests as GraphQLRequest[], seconds);
  const warmup = peer.checked ? SERVING_WARMUP_SECONDS : BARE_WARMUP_SECONDS;
  await runBodiesLoad({ url: peer.url, seconds: warmup, ...bodiesFor(warmup) });
  if (peer.checked) {
    await mock.untilQuiet();
    await mock.reset();
  }
  const load = bodiesFor(SECONDS);
  const result = await runBodiesLoad({ url: peer.url, seconds: SECONDS, ...load, checkBodies: peer.checked });
  if (peer.checked && load.order === 'cycle' && result.requestsSent > load.bodies.length) {
    console.error(`bench: serving, ${scenario}: ${result.requestsSent} requests went round ${load.bodies.length} distinct bodies (raise SITES_NEAR_BODIES_PER_SECOND)`);
  }
  return { ...result, check, upstreamCalls: peer.checked ? apiCalls(await mock.calls()) : null };
}

/** Whether an outcome is a measured run. */
export function isRun(outcome: ServingOutcome | undefined): outcome is ServingRun {
  return outcome !== undefined && !('notRun' in outcome);
}

// Private: the bodies of a load run of `seconds`: the keys' bodies, one drawn at random for each
// request, or for `sitesNear` fresh random queries sent in turn (its answers must not repeat).
function loadBodies(peer: ServingPeer, scenario: ServingScenario, mock: BenchMock, requests: GraphQLRequest[], seconds: number):
  Pick<BodiesLoadOptions, 'bodies' | 'order'> {
  if (scenario !== 'sitesNear') return { bodies: requests.map((request) => JSON.stringify(request)), order: 'random' };
  const count = Math.ceil(seconds * SITES_NEAR_BODIES_PER_SECOND);
  return { bodies: Array.from({ length: count }, () => JSON.stringify(peer.request(scenario, randomKey(scenario, mock)))), order: 'cycle' };
}

/** The gateway as a serving peer at `graphqlUrl`. */
export function gatewayPeer(graphqlUrl: string): ServingPeer {
  return { url: graphqlUrl, request: gatewayRequest, checked: true };
}
