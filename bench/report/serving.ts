/**
 * The serving scenarios' targets (issue 14, exactly its list), their figures per peer in brief
 * (the console and the chart), and the labels both use. RESULTS.md's tables are in
 * `serving-markdown.ts`.
 */
import { SERVING_BASELINE } from '../config.js';
import { round } from '../load/load.js';
import { SERVING_PEERS, type ServingPeerName, type ServingResult } from '../measure/serving.js';
import { isRun, type ServingOutcome, type ServingRun } from '../scenarios/serving.js';
import { wrongAnswers } from '../workloads/check.js';
import type { ServingScenario } from '../workloads/serving.js';
import type { Target } from './target.js';

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

/** Load generator CPU (% of its core) from which a run counts as bounded by the generator. */
const SATURATED_CPU = 85;

/** The targets, judged on this run. A gateway figure from wrong answers meets nothing. */
export function servingTargets(s: ServingResult): Target[] {
  const x = s.scenarios;
  const deep = x.deep.gatewayCacheOff;
  const deepRatio = isRun(deep) ? round(deep.requestsPerSecond / SERVING_BASELINE.deepPageOffRps, 2) : NaN;
  const spread = isRun(deep) ? round(deep.latencyP99Ms / deep.latencyP50Ms, 2) : NaN;
  const { alone, withDeep } = s.mix;
  const mixRatio = round(withDeep.small.p99 / alone.small.p99, 2);
  const near = x.sitesNear.gatewayCacheOn;
  const nearRatio = isRun(near) ? round(near.requestsPerSecond / SERVING_BASELINE.sitesNearRps, 2) : NaN;
  const tailcallDeep = isRun(x.deep.tailcall) ? `; Tailcall ${x.deep.tailcall.requestsPerSecond} req/s, p50 ${x.deep.tailcall.latencyP50Ms} ms, p99 ${x.deep.tailcall.latencyP99Ms} ms` : '';
  return [
    ratioTarget('Response-cache hit, one product (random goods code): req/s ÷ bare server', 0.8, x.small.gatewayCacheOn, x.small.bare),
    ratioTarget('Response-cache hit, the same cities page: req/s ÷ bare server', 0.8, x.cities.gatewayCacheOn, x.cities.bare),
    ratioTarget('Executed (response cache off), one product (random goods code): req/s ÷ bare server', 0.5, x.small.gatewayCacheOff, x.small.bare),
    ratioTarget('Executed (response cache off), one site with points, lanes, products (random site): req/s ÷ Tailcall with @cache', 2, x.site.gatewayCacheOff, x.site.tailcall),
    judged(`50-site deep page, response cache off: req/s ÷ the issue's ${SERVING_BASELINE.deepPageOffRps} req/s`, '≥ 3', deep,
      `${deepRatio} (${isRun(deep) ? deep.requestsPerSecond : 'n/a'} req/s${tailcallDeep})`, deepRatio >= 3),
    judged('50-site deep page, response cache off, 32 connections: p99 ÷ p50', '≤ 3', deep,
      `${spread} (p50 ${isRun(deep) ? deep.latencyP50Ms : 'n/a'} ms, p99 ${isRun(deep) ? deep.latencyP99Ms : 'n/a'} ms)`, spread <= 3),
    judged(`Mix (1 deep page to ${withDeep.smallPerDeep} small queries, response cache off): small queries' p99 ÷ their p99 alone`, '≤ 3', undefined,
      `${mixRatio} (${withDeep.small.p99} ms in the mix, ${alone.small.p99} ms alone; deep pages p99 ${withDeep.deep?.p99 ?? 'n/a'} ms; ${withDeep.clientErrors + alone.clientErrors} client errors)`,
      mixRatio <= 3 && withDeep.clientErrors + alone.clientErrors === 0),
    judged(`sitesNear, random coordinates: req/s ÷ ${SERVING_BASELINE.sitesNearRps} req/s (bench/RESULTS.md before the issue)`, '≥ 3', near,
      `${nearRatio} (${isRun(near) ? near.requestsPerSecond : 'n/a'} req/s)`, nearRatio >= 3),
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

/** Whether the load generator, not the server, may have bounded a run. */
export function generatorBound(run: ServingRun): boolean {
  return run.loadGeneratorCpuPercent >= SATURATED_CPU;
}

// Private: gateway req/s ÷ a peer's, judged against `min`.
function ratioTarget(what: string, min: number, gateway: ServingOutcome | undefined, peer: ServingOutcome | undefined): Target {
  if (!isRun(peer)) {
    const own = isRun(gateway) ? `${gateway.requestsPerSecond} req/s; ` : '';
    return { what, target: `≥ ${min}`, actual: `${own}no ratio: the peer was not run (${peer?.notRun ?? 'not measured'})`, met: null };
  }
  const ratio = isRun(gateway) ? round(gateway.requestsPerSecond / peer.requestsPerSecond, 3) : NaN;
  const bound = generatorBound(peer) ? `; the peer's run was bounded by the load generator, ${peer.loadGeneratorCpuPercent} % CPU` : '';
  const peerWrong = wrongFlag(peer) === '' ? '' : `; the peer gave ${wrongFlag(peer).slice(2)}`;
  const figures = `${isRun(gateway) ? gateway.requestsPerSecond : 'n/a'} ÷ ${peer.requestsPerSecond} req/s${bound}${peerWrong}`;
  return judged(what, `≥ ${min}`, gateway, `${ratio} (${figures})`, ratio >= min);
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
