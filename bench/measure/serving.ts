/**
 * The serving scenarios (`BENCH_ONLY=serving` alone), each peer in turn on the
 * system-under-test core:
 *
 * 1. the gateway with its defaults (response cache on): small, site, cities, sitesNear;
 * 2. the gateway with `RESPONSE_CACHE_MAX_BYTES=0` (every answer executed, over warm data): small,
 *    site, the 50-site deep page, and the mix (small queries alone, then with deep pages);
 * 3. Tailcall (`peers/tailcall-adapter.ts`), when it runs: small, site, cities, deep (it has no
 *    `sitesNear`: the cell says why);
 * 4. the bare `node:http` server (`peers/bare-server.ts`), parsing each request and answering
 *    from a Map of every key of the scenario to one of the gateway's own answers;
 * 5. compressed answers (compression.ts): the deep page's bytes per coding, its hits in br and identity.
 *
 * Both gateways keep `INDEX_REFRESH_S` high, as the catalog-index scenario does, so that no
 * index rebuild runs during a `sitesNear` run. Each scenario's checked warm-up comes right before
 * its load run, so the data it fetched is still fresh (sites: 30 s) when the run ends.
 */
import { loadavg } from 'node:os';
import { GATEWAY_SITES_TTL_MS, INDEX_REFRESH_S, MIX_SMALL_PER_DEEP, SITES_NEAR_CHECKS } from '../config.js';
import { expectClean, postGraphQL } from '../load/graphql-client.js';
import { loadGeneratorLabel } from '../load/wrk.js';
import { startBare } from '../peers/bare.js';
import { loadTailcall } from '../peers/tailcall-adapter.js';
import { withProcess, type RunningProcess } from '../processes/child.js';
import { startGateway } from '../processes/gateway.js';
import { clock } from '../processes/machine.js';
import type { BenchMock } from '../processes/mock.js';
import { mixLoad, type MixRun } from '../scenarios/mix.js';
import { tokenFor } from '../scenarios/rest-client.js';
import { gatewayPeer, servingRun, type ExpectedOf, type ServingOutcome } from '../scenarios/serving.js';
import { bareRunOf, type InterleavedResult, type Reads } from '../scenarios/interleaved.js';
import { checkAnswers } from '../workloads/check.js';
import { everyKey, gatewayRequest, randomKey, type ServingKey, type ServingScenario } from '../workloads/serving.js';
import { measureCompression, type CompressionResult } from './compression.js';
import { inTurnWithBare } from './in-turn.js';

/** The peers of the serving scenarios. */
export const SERVING_PEERS = ['gatewayCacheOn', 'gatewayCacheOff', 'tailcall', 'bare'] as const;
export type ServingPeerName = (typeof SERVING_PEERS)[number];

/** What each peer measured of one scenario (absent: not part of the plan). */
export type ServingRow = Partial<Record<ServingPeerName, ServingOutcome>>;

/** Everything the serving scenarios measured. */
export interface ServingResult {
  scenarios: Record<ServingScenario, ServingRow>;
  /** Small queries alone and mixed with deep pages, on the gateway with the response cache off. */
  mix: { alone: MixRun; withDeep: MixRun };
  tailcall: { ran: true; versions: Record<string, string> } | { ran: false; why: string };
  /** Answer bytes the bare server replayed per scenario. */
  bareBodyBytes: Partial<Record<ServingScenario, number>>;
  /**
   * What generated the load of every run but the mix's (`../load/wrk.ts`), e.g. `wrk debian/4.1.0-3+b2,
   * 1 thread, 32 connections`. Absent in results from before wrk: autocannon.
   */
  loadGenerator?: string;
  loadAverage: { atStart: number; atEnd: number };
  /**
   * Every ratio to the bare server, from slices of each in turn (scenarios/interleaved.ts): hits of
   * one product and one site, executed one product and 50-site deep page. Absent in results from before them.
   */
  interleaved?: Partial<Record<InterleavedName, InterleavedResult>>;
  /** Compressed answers: the deep page per coding, its hits in br beside identity. Absent in results from before it. */
  compression?: CompressionResult;
}

/** The interleaved comparisons with the bare server: a hit of one product, of one site; one product and the deep page executed. */
export type InterleavedName = 'smallHit' | 'siteHit' | 'smallExecuted' | 'deepExecuted';

const GATEWAY_SCENARIOS: ServingScenario[] = ['small', 'site', 'cities', 'sitesNear'];
/** With the response cache off: what the serving targets need. */
const CACHE_OFF_SCENARIOS: ServingScenario[] = ['small', 'site', 'deep'];
/** Why the others are not run with the response cache off (each would add about 17 s to the bench). */
const CACHE_OFF_SKIPPED: Partial<Record<ServingScenario, string>> = {
  cities: 'no target needs the executed cities page',
  sitesNear: 'every request has fresh coordinates, so the response-cache-on run already executes each one',
};
const TAILCALL_SCENARIOS: ServingScenario[] = ['small', 'site', 'cities', 'deep'];
/** Why Tailcall has no `sitesNear` run, for its cell in the report. */
const NO_TAILCALL_SITES_NEAR = 'no equivalent: sitesNear is the gateway\'s own in-memory catalog index, and the upstream, all Tailcall can map, has no search by place';
/** Keys tried for a representative answer: the bare server replays the one of median size. */
const REPRESENTATIVE_SAMPLES = 21;

/** Every serving scenario on every peer. */
export async function measureServing(mock: BenchMock): Promise<ServingResult> {
  const atStart = loadAverage();
  const scenarios: Record<ServingScenario, ServingRow> = { small: {}, site: {}, cities: {}, deep: {}, sitesNear: {} };
  const expectedOf = memoisedExpected(mock);
  // Installing Tailcall (first run only) happens before anything is measured.
  const tailcallAvailability = await loadTailcall();
  const bodies: Partial<Record<ServingScenario, Buffer>> = {};
  const interleaved: ServingResult['interleaved'] = {};
  const env = { INDEX_REFRESH_S: String(INDEX_REFRESH_S) };

  await withProcess(startGateway(mock, env), async (gw) => {
    for (const scenario of GATEWAY_SCENARIOS) {
      step(`gateway, response cache on: ${scenario}`);
      let checkedAt = 0;
      scenarios[scenario].gatewayCacheOn = await servingRun(gatewayPeer(`${gw.url}/graphql`), scenario, mock, expectedOf, () => (checkedAt = performance.now()));
      bodies[scenario] = await representativeAnswer(`${gw.url}/graphql`, scenario, mock);
      if (scenario === 'small' || scenario === 'site') {
        // A site's answer is fresh for the sites' TTL from its check; a product's outlasts the bench.
        const staleAt = scenario === 'site' ? checkedAt + GATEWAY_SITES_TTL_MS + 1000 : 0;
        const inTurn = await besideBare(`${gw.url}/graphql`, scenario, bodies[scenario], mock, expectedOf, staleAt);
        interleaved[`${scenario}Hit`] = inTurn;
        scenarios[scenario].bare = bareRunOf(inTurn);
      }
    }
    scenarios.deep.gatewayCacheOn = { notRun: 'the same page every request is a hit, as the cities page\'s run shows' };
  });

  const mix = await withProcess(startGateway(mock, { ...env, RESPONSE_CACHE_MAX_BYTES: '0' }), async (gw) => {
    const url = `${gw.url}/graphql`;
    for (const scenario of CACHE_OFF_SCENARIOS) {
      step(`gateway, response cache off: ${scenario}`);
      let checkedAt = 0;
      scenarios[scenario].gatewayCacheOff = await servingRun(gatewayPeer(url), scenario, mock, expectedOf, () => (checkedAt = performance.now()));
      if (scenario === 'small') interleaved.smallExecuted = await besideBare(url, scenario, bodies.small!, mock, expectedOf, 0);
      if (scenario === 'deep') {
        bodies.deep = await representativeAnswer(url, 'deep', mock);
        // Its sites are fresh for their TTL from the check; its 256 KB answers the generator reads from the gateway only.
        const inTurn = await besideBare(url, scenario, bodies.deep, mock, expectedOf, checkedAt + GATEWAY_SITES_TTL_MS + 1000, 'gateway');
        interleaved.deepExecuted = inTurn;
        scenarios.deep.bare = bareRunOf(inTurn);
      }
    }
    for (const [scenario, why] of Object.entries(CACHE_OFF_SKIPPED)) scenarios[scenario as ServingScenario].gatewayCacheOff = { notRun: why };
    const small = everyKey('small', mock, 0).map((key) => JSON.stringify(gatewayRequest('small', key)));
    const nextSmall = (): string => small[Math.floor(Math.random() * small.length)]!;
    step('gateway, response cache off: small queries alone, then mixed with deep pages');
    const alone = await mixLoad({ url, nextSmall, deep: null }, mock);
    const deepBody = JSON.stringify(gatewayRequest('deep', randomKey('deep', mock)));
    const withDeep = await mixLoad({ url, nextSmall, deep: { body: deepBody, smallPerDeep: MIX_SMALL_PER_DEEP } }, mock);
    return { alone, withDeep };
  });

  const tailcall = await tailcallRuns(mock, tailcallAvailability, expectedOf);
  for (const scenario of TAILCALL_SCENARIOS) scenarios[scenario].tailcall = tailcall.runs[scenario] ?? { notRun: tailcall.why ?? 'not run' };
  scenarios.sitesNear.tailcall = { notRun: NO_TAILCALL_SITES_NEAR };

  // The bare server maps every key of each scenario to the answer of median size. One product's,
  // one site's and the deep page's bare figures are its slices beside the gateway's (besideBare);
  // the others' bare runs are figures beside the gateway's, no ratio.
  const rest = (Object.keys(bodies) as ServingScenario[]).filter((scenario) => scenarios[scenario].bare === undefined);
  const routes = Object.fromEntries(rest.map((scenario) => [scenario, { answer: bodies[scenario]!, keys: everyKey(scenario, mock, SITES_NEAR_CHECKS) }]));
  await withProcess(startBare(routes), async (bare) => {
    for (const scenario of rest) {
      step(`bare node:http server: ${scenario}`);
      scenarios[scenario].bare = await servingRun({ url: `${bare.url}/${scenario}`, request: gatewayRequest, checked: false }, scenario, mock, expectedOf);
    }
  });
  const compression = await measureCompression(mock);
  const bareBodyBytes = Object.fromEntries(Object.entries(bodies).map(([name, body]) => [name, body.length]));
  const tailcallSummary = tailcallAvailability.ok && tailcall.why === undefined
    ? { ran: true as const, versions: tailcallAvailability.peer.versions }
    : { ran: false as const, why: tailcall.why ?? 'not run' };
  return { scenarios, mix, tailcall: tailcallSummary, bareBodyBytes, loadGenerator: loadGeneratorLabel(), loadAverage: { atStart, atEnd: loadAverage() }, interleaved, compression };
}

// Private: Tailcall's runs, or why there are none (not installed, or it did not start).
async function tailcallRuns(mock: BenchMock, availability: Awaited<ReturnType<typeof loadTailcall>>, expectedOf: ExpectedOf):
  Promise<{ runs: Partial<Record<ServingScenario, ServingOutcome>>; why?: string }> {
  if (!availability.ok) {
    step(`Tailcall: not run: ${availability.why}`);
    return { runs: {}, why: availability.why };
  }
  const { peer } = availability;
  let tailcall: RunningProcess;
  try {
    step('Tailcall: start');
    tailcall = await peer.start(mock.url, await tokenFor(mock));
  } catch (error) {
    const why = `it did not start: ${String(error).split('\n')[0]}`;
    step(`Tailcall: not run: ${why}`);
    return { runs: {}, why };
  }
  return withProcess(Promise.resolve(tailcall), async (tc) => {
    const runs: Partial<Record<ServingScenario, ServingOutcome>> = {};
    const request = (scenario: ServingScenario, key: ServingKey) => (scenario === 'sitesNear' ? null : peer.request(scenario, key));
    for (const scenario of TAILCALL_SCENARIOS) {
      step(`Tailcall: ${scenario}`);
      runs[scenario] = await servingRun({ url: `${tc.url}/graphql`, request, checked: true }, scenario, mock, expectedOf);
    }
    return { runs };
  });
}

// Private: the gateway at `url` (warm) and a bare server of `scenario` alone, loaded in turn, the answers `reads` says read.
async function besideBare(url: string, scenario: ServingScenario, answer: Buffer, mock: BenchMock, expectedOf: ExpectedOf, staleAt: number,
  reads: Reads = 'both'): Promise<InterleavedResult> {
  step(`${scenario}: the gateway and the bare server in turn`);
  const keys = everyKey(scenario, mock, SITES_NEAR_CHECKS);
  const requests = keys.map((key) => gatewayRequest(scenario, key)!);
  const expected = await expectedOf(scenario, keys);
  const askEveryKey = () => checkAnswers(url, keys.map((key, i) => ({ key, request: requests[i]!, expected: expected[i] })));
  const bodies = requests.map((request) => JSON.stringify(request));
  return inTurnWithBare(url, { name: scenario, answer, keys, reads }, bodies, mock, { staleAt, askEveryKey });
}

/** The gateway's answer of median size over a few random keys: what the bare server replays. */
export async function representativeAnswer(url: string, scenario: ServingScenario, mock: BenchMock): Promise<Buffer> {
  const answers: Buffer[] = [];
  for (let i = 0; i < REPRESENTATIVE_SAMPLES; i += 1) {
    answers.push(expectClean(await postGraphQL(url, gatewayRequest(scenario, randomKey(scenario, mock))), `${scenario} answer for the bare server`).bytes);
  }
  return answers.sort((a, b) => a.length - b.length)[Math.floor(answers.length / 2)]!;
}

// Private: the mock's expected data, fetched once per scenario whose keys are always the same.
function memoisedExpected(mock: BenchMock): ExpectedOf {
  const memo = new Map<ServingScenario, Promise<unknown[]>>();
  return (scenario, keys) => {
    if (scenario === 'sitesNear') return mock.expected(scenario, keys);
    if (!memo.has(scenario)) memo.set(scenario, mock.expected(scenario, keys));
    return memo.get(scenario)!;
  };
}


function loadAverage(): number {
  return Math.round(loadavg()[0]! * 100) / 100;
}

// Private: progress on stderr, as all.ts does.
function step(what: string): void {
  console.error(`bench: ${clock()} serving, ${what}`);
}
