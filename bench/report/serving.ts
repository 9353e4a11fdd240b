/**
 * The serving scenarios' targets (ratios to the bare server and Tailcall, the deep page's req/s and spread, the mix, and the compressed hit: compression.ts), their figures per peer in brief
 * (the console and the chart), and the labels both use. RESULTS.md's tables are in
 * `serving-markdown.ts`.
 */
import { SECONDS } from '../config.js';
import { round } from '../load/load.js';
import { SERVING_PEERS, type ServingPeerName, type ServingResult } from '../measure/serving.js';
import { isRun, type ServingOutcome, type ServingRun } from '../scenarios/serving.js';
import { wrongAnswers } from '../workloads/check.js';
import type { ServingScenario } from '../workloads/serving.js';
import type { Target } from './target.js';
import { compressionTargets } from './compression.js';
import type { InterleavedResult } from '../scenarios/interleaved.js';
import { generatorBound, inTurnVerdict, type InTurnFigure } from './in-turn.js';

/** How each scenario and peer is named in the reports. */
export const SCENARIO_LABELS: Record<ServingScenario, string> = {
  small: 'one product, random goods code',
  site: 'one site with points, lanes, products, random site',
  cities: 'the same cities page',
  deep: '50-site deep page, the same',
  sitesNear: 'sitesNear, random coordinates',
};
export const PEER_LABELS: Record<ServingPeerName, string> = {
  gatewayCacheOn: 'vending-graph, response cache on',
  gatewayCacheOff: 'vending-graph, response cache off',
  tailcall: 'Tailcall + @cache',
  bare: 'bare node:http (parse, Map lookup, write)',
};

/** The 50-site deep page with the response cache off, in req/s: the serving target, three times the baseline (`SERVING_BASELINE`). */
const DEEP_OFF_RPS = 150;

/** The serving targets, judged on this run. A gateway figure from wrong answers meets nothing. */
export function servingTargets(s: ServingResult): Target[] {
  const x = s.scenarios;
  const deep = x.deep.gatewayCacheOff;
  const spread = isRun(deep) ? round(deep.latencyP99Ms / deep.latencyP50Ms, 2) : NaN;
  const { alone, withDeep } = s.mix;
  const mixRatio = round(withDeep.small.p99 / alone.small.p99, 2);
  const rps = (r: ServingRun): number => r.requestsPerSecond;
  const p99 = (r: ServingRun): number => r.latencyP99Ms;
  const deepFigures = isRun(deep) ? `${deep.requestsPerSecond} req/s, p50 ${deep.latencyP50Ms} ms, p99 ${deep.latencyP99Ms} ms` : 'not run';
  const tailcallDeep = isRun(x.deep.tailcall) ? `; Tailcall ${x.deep.tailcall.requestsPerSecond} req/s` : '';
  const inTurn = s.interleaved ?? {};
  const deepVsBare = inTurn.deepExecuted === undefined ? sequentialText(ratio(deep, x.deep.bare, rps, 'req/s'))
    : inTurnVerdict(inTurn.deepExecuted, 'throughput', () => true, '').actual;
  return [
    bareTarget('Response-cache hit, one product (random goods code): req/s ÷ bare server', '≥ 0.7', inTurn.smallHit, x.small.gatewayCacheOn,
      ratio(x.small.gatewayCacheOn, x.small.bare, rps, 'req/s'), (v) => v >= 0.7),
    bareTarget('Response-cache hit, one site with points, lanes, products (random site): req/s ÷ bare server', '≥ 0.7', inTurn.siteHit, x.site.gatewayCacheOn,
      ratio(x.site.gatewayCacheOn, x.site.bare, rps, 'req/s'), (v) => v >= 0.7),
    bareTarget('Executed (response cache off), one product (random goods code): req/s ÷ bare server', '≥ 0.4', inTurn.smallExecuted, x.small.gatewayCacheOff,
      ratio(x.small.gatewayCacheOff, x.small.bare, rps, 'req/s'), (v) => v >= 0.4),
    ratioTarget('Executed (response cache off), one site with points, lanes, products (random site): req/s ÷ Tailcall with @cache', '≥ 2',
      ratio(x.site.gatewayCacheOff, x.site.tailcall, rps, 'req/s'), (v) => v >= 2),
    bareTarget('Response-cache hit, one product, 32 connections: p99 ÷ the bare server\'s p99', '≤ 2', inTurn.smallHit, x.small.gatewayCacheOn,
      ratio(x.small.gatewayCacheOn, x.small.bare, p99, 'ms'), (v) => v <= 2, 'p99'),
    bareTarget('Response-cache hit, one site, 32 connections: p99 ÷ the bare server\'s p99', '≤ 2', inTurn.siteHit, x.site.gatewayCacheOn,
      ratio(x.site.gatewayCacheOn, x.site.bare, p99, 'ms'), (v) => v <= 2, 'p99'),
    bareTarget('Executed (response cache off), one product, 32 connections: p99 ÷ the bare server\'s p99', '≤ 3', inTurn.smallExecuted, x.small.gatewayCacheOff,
      ratio(x.small.gatewayCacheOff, x.small.bare, p99, 'ms'), (v) => v <= 3, 'p99'),
    judged(`50-site deep page, response cache off: req/s (and ÷ the bare server's deep page, reported)`, `≥ ${DEEP_OFF_RPS}`, deep,
      `${deepFigures}; ÷ bare: ${deepVsBare}${tailcallDeep}`, isRun(deep) && deep.requestsPerSecond >= DEEP_OFF_RPS),
    judged('50-site deep page, response cache off, 32 connections: p99 ÷ p50', '≤ 3', deep,
      `${spread} (p50 ${isRun(deep) ? deep.latencyP50Ms : 'n/a'} ms, p99 ${isRun(deep) ? deep.latencyP99Ms : 'n/a'} ms)`, spread <= 3),
    judged(`Mix (1 deep page to ${withDeep.smallPerDeep} small queries, response cache off): small queries' p99 ÷ their p99 alone`, '≤ 3', undefined,
      `${mixRatio} (${withDeep.small.p99} ms in the mix, ${alone.small.p99} ms alone; deep pages p99 ${withDeep.deep?.p99 ?? 'n/a'} ms; ${withDeep.clientErrors + alone.clientErrors} client errors)`,
      mixRatio <= 3 && withDeep.clientErrors + alone.clientErrors === 0),
    ...compressionTargets(s.compression),
  ];
}

/** One line per scenario and peer, for the console. */
export function servingRows(s: ServingResult): Array<Record<string, string | number>> {
  return (Object.keys(s.scenarios) as ServingScenario[]).flatMap((scenario) => SERVING_PEERS.flatMap((peer): Array<Record<string, string | number>> => {
    const outcome = s.scenarios[scenario][peer];
    if (outcome === undefined) return [];
    if (!isRun(outcome)) return [{ scenario, peer, notRun: outcome.notRun }];
    return [{
      scenario, peer, rps: Math.round(outcome.requestsPerSecond), p50Ms: outcome.latencyP50Ms, p99Ms: outcome.latencyP99Ms,
      errors: outcome.clientErrors, checked: outcome.check?.checked ?? '-', wrong: outcome.check ? wrongAnswers(outcome.check) : '-',
      upstreamCalls: outcome.upstreamCalls ?? '-', loadCpu: outcome.loadGeneratorCpuPercent,
    }];
  }));
}

/** The wrong answers of a run's checked warm-up, as a warning ('' when none or unchecked). */
export function wrongFlag(outcome: ServingOutcome | undefined): string {
  if (!isRun(outcome) || outcome.check === null) return '';
  const wrong = wrongAnswers(outcome.check);
  return wrong === 0 ? '' : `⚠ ${wrong} wrong answers of ${outcome.check.checked} checked`;
}

/** A gateway figure ÷ a peer's, with both figures; or why there is none. */
type Ratio = { value: number; figures: string; gateway: ServingRun } | { why: string };

// Private: `figure` of the gateway's run ÷ the peer's, refused when the peer did not run or its
// load generator was the bottleneck (the ratio would then measure the generator, not the peer).
function ratio(gateway: ServingOutcome | undefined, peer: ServingOutcome | undefined, figure: (r: ServingRun) => number, unit: string): Ratio {
  if (!isRun(peer)) return { why: `no ratio: the peer was not run (${peer?.notRun ?? 'not measured'})` };
  if (generatorBound(peer)) return { why: `no ratio: the load generator, not the server, was the bottleneck (${peer.loadGeneratorCpuPercent} % CPU)` };
  if (!isRun(gateway)) return { why: `no ratio: the gateway was not run (${gateway?.notRun ?? 'not measured'})` };
  const peerWrong = wrongFlag(peer) === '' ? '' : `; the peer gave ${wrongFlag(peer).slice(2)}`;
  return { value: round(figure(gateway) / figure(peer), 3), figures: `${figure(gateway)} ÷ ${figure(peer)} ${unit}${peerWrong}`, gateway };
}

// Private: a target on a ratio, judged by `ok` (and the gateway's answers); a refused ratio is not measured, never met.
function ratioTarget(what: string, target: string, r: Ratio, ok: (value: number) => boolean): Target {
  if ('why' in r) return { what, target, actual: r.why, met: 'unmeasured' };
  return judged(what, target, r.gateway, `${r.value} (${r.figures})`, ok(r.value));
}

// Private: a ratio to the bare server (req/s, or p99 with `figure`), judged on the median of the
// interleaved pairs (in-turn.ts), with the gateway's 15 s run ÷ the bare slices together beside
// it; on the 15 s runs alone in results from before the pairs. Unmet also on the 15 s run's wrong answers.
function bareTarget(what: string, target: string, pairs: InterleavedResult | undefined,
  gateway: ServingOutcome | undefined, sequential: Ratio, ok: (value: number) => boolean, figure: InTurnFigure = 'throughput'): Target {
  if (pairs === undefined) return ratioTarget(what, target, sequential, ok);
  const verdict = inTurnVerdict(pairs, figure, ok, `the gateway's ${SECONDS} s run ÷ the bare slices together: ${sequentialText(sequential)}`);
  if (verdict.met === 'unmeasured') return { what, target, ...verdict };
  return judged(what, target, gateway, verdict.actual, verdict.met === true);
}

// Private: a ratio of two runs in words, or why there is none.
function sequentialText(r: Ratio): string {
  return 'why' in r ? r.why : `${r.value} (${r.figures})`;
}

// Private: a target whose gateway run must also have answered right and cleanly.
function judged(what: string, target: string, gateway: ServingOutcome | undefined, actual: string, met: boolean): Target {
  const flag = wrongFlag(gateway);
  const errors = isRun(gateway) && gateway.clientErrors > 0 ? `${gateway.clientErrors} client errors under load` : '';
  const problems = [flag, errors].filter((p) => p !== '').join('; ');
  return { what, target, actual: problems === '' ? actual : `${actual}; ${problems}`, met: met && problems === '' };
}

/** A chart row of the serving scenarios: throughput and latency of one run. */
export interface ServingChartRow {
  label: string;
  peer: ServingPeerName;
  requestsPerSecond: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
}

const CHART_SCENARIOS: Record<ServingScenario, string> = {
  small: 'random product', site: 'random site', cities: 'cities page', deep: '50-site deep', sitesNear: 'sitesNear random',
};
const CHART_PEERS: Record<ServingPeerName, string> = {
  gatewayCacheOn: 'gateway', gatewayCacheOff: 'gateway, cache off', tailcall: 'Tailcall + @cache', bare: 'bare server',
};

/** Every serving run that happened, then the mix's small queries alone and among deep pages. */
export function servingChartRows(s: ServingResult): ServingChartRow[] {
  const runs = (Object.keys(CHART_SCENARIOS) as ServingScenario[]).flatMap((scenario) => SERVING_PEERS.flatMap((peer) => {
    const x = s.scenarios[scenario]?.[peer];
    return isRun(x) ? [{ label: `${CHART_SCENARIOS[scenario]} · ${CHART_PEERS[peer]}`, peer, ...x }] : [];
  }));
  const mixRow = (label: string, x: ServingResult['mix']['alone']): ServingChartRow =>
    ({ label, peer: 'gatewayCacheOff', requestsPerSecond: x.small.requestsPerSecond, latencyP50Ms: x.small.p50, latencyP99Ms: x.small.p99 });
  return [...runs, mixRow('small alone · gateway, cache off', s.mix.alone), mixRow('small in the mix · gateway, cache off', s.mix.withDeep)];
}
