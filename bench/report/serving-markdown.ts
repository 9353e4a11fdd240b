/**
 * RESULTS.md's serving section: every distinct-key and deep-page scenario side by
 * side on every peer, each run's details, the mix, compressed answers (compression.ts), and how it is measured.
 */
import { BARE_WARMUP_SECONDS, SERVING_WARMUP_SECONDS } from '../config.js';
import { SERVING_PEERS, type InterleavedName, type ServingResult } from '../measure/serving.js';
import type { InterleavedResult } from '../scenarios/interleaved.js';
import { isRun, type ServingOutcome } from '../scenarios/serving.js';
import { wrongAnswers } from '../workloads/check.js';
import type { ServingScenario } from '../workloads/serving.js';
import type { Results } from './results.js';
import { PEER_LABELS, SCENARIO_LABELS, wrongFlag } from './serving.js';
import { compressionMarkdown } from './compression.js';
import { SATURATED_CPU, generatorBound, inTurnHow, inTurnTable } from './in-turn.js';

/** The section, or a line saying it was not measured (a latest.json from before it existed). */
export function servingSection(r: Results): string {
  const s: ServingResult | undefined = r.raw.serving;
  if (s === undefined) return '## Serving: distinct keys, deep page with the response cache off, mix\n\nNot measured in this run.';
  return ['## Serving: distinct keys, deep page with the response cache off, mix', '',
    intro(s, r.settings.connections, r.machine.cores), '', sideBySide(s), '', details(s), '', inTurn(s), '', mix(s), '', compressionMarkdown(s.compression)].join('\n');
}

const IN_TURN_LABELS: Record<InterleavedName, string> = {
  smallHit: 'one product, response-cache hit', siteHit: 'one site, response-cache hit', smallExecuted: 'one product, executed (response cache off)',
  deepExecuted: '50-site deep page, executed (response cache off)',
};

// Private: the slices of the gateway and the bare server in turn, which every ratio to the bare server is judged on.
function inTurn(s: ServingResult): string {
  const sets = Object.entries(s.interleaved ?? {}) as Array<[InterleavedName, InterleavedResult]>;
  if (sets.length === 0) return '';
  return [`**In turn** (every ratio to the bare server): ${inTurnHow(sets[0]![1])}. Every key was asked of the gateway once before the first pair, after what its check had fetched expired, `
    + 'so that no data expires during the slices (upstream calls counted in its slices).', '',
  inTurnTable(sets.map(([name, x]) => [IN_TURN_LABELS[name], x] as const))].join('\n');
}

/** How the serving figures are measured, for the assumptions list. */
export function servingAssumption(): string {
  return '- **Serving**: each scenario on each peer begins with a checked warm-up: every key once (every goods code, every site; '
    + '`sitesNear`: 200 random queries), each answer\'s `data` compared with `util.isDeepStrictEqual` against the data the mock builds from the catalog it serves '
    + '(`bench/workloads/expected.ts`); wrong answers are counted and flagged, never hidden. Then an unmeasured load warm-up of ' + SERVING_WARMUP_SECONDS + ' s (a fresh process settles its JIT and heap in it) and the measured run, a random key each request '
    + '(bodies serialised beforehand; `sitesNear`: fresh random queries near a random site, as in the catalog-index scenario, sent in turn so that none repeats). '
    + 'The load is wrk\'s when `wrk` is installed (`bench/load/wrk.ts`, `bench/load/wrk.lua`: one thread on the load generator\'s core, requests formatted before the run, '
    + 'a body drawn per request in Lua; its CPU is its own process CPU time over the run), else autocannon\'s in the bench process; the section says which ran. '
    + 'Every answer is read for GraphQL `errors` (with wrk, in a Lua `response` callback), but those of the bare server\'s own runs, which are known bytes: reading its 256 KB deep pages bounded wrk before the server, and a generator that reads less only makes the ratios to the bare server stricter. The bare server (`bench/peers/bare-server.ts`, on the gateway\'s Node) reads and `JSON.parse`s each body, takes the scenario\'s key from its variables and answers from a `Map` of every key of the scenario (every goods code, every site; `sitesNear`: the checked coordinates) to the gateway\'s answer of median size over 21 random keys; an unknown key gets the same bytes, so every request costs a parse, a lookup and a write. Every ratio to the bare server (req/s and p99 of hits of one product and one site and of one product executed; req/s of the 50-site deep page executed) is judged on the slices *In turn* shows, not on runs minutes apart: this machine\'s speed moves by a third within seconds (the same bare server, at 100 % of its core each time, served 11.9k to 21.6k req/s in eight runs of 4 s back to back; in one bench run its one-product runs a few minutes apart gave 10.7k and 15.8k req/s). In the slices the generator reads the bare server\'s answers too, so that it does the same work for both, but the 50-site deep page\'s (256 KB each: reading them at the bare server\'s rate bounded wrk first; the ratio is then the stricter). For those scenarios the bare server\'s figures in the tables are its slices together (its rate over all of them, the medians of their p50 and p99, after ' + BARE_WARMUP_SECONDS + ' s of warm-up); the p99 targets give the gateway\'s 15 s run, which holds its collections, ÷ that median p99 beside the pairs\' median. The other scenarios\' bare runs (cities, `sitesNear`: figures, no ratio) come at the end, each after ' + BARE_WARMUP_SECONDS + ' s of warm-up. A ratio whose run, or any slice of either server, had its load generator at ' + SATURATED_CPU + ' % of its core or more is not given: that run measured the generator, and its target is *not measured*. '
    + 'Both gateways run with `INDEX_REFRESH_S` high (no index rebuild mid-run); response cache off is `RESPONSE_CACHE_MAX_BYTES=0`. '
    + 'The mix times each answer from autocannon\'s own `response` event and files it under the kind of request it answered (`bench/scenarios/mix.ts` says why one instance).';
}

// Private: what ran, the machine's load, Tailcall's versions or why it did not run.
function intro(s: ServingResult, connections: number, cores: number): string {
  const tailcall = s.tailcall.ran
    ? `Tailcall: ${Object.entries(s.tailcall.versions).map(([name, v]) => `${name} ${v}`).join(', ')}.`
    : `**Tailcall not run**: ${s.tailcall.why}.`;
  const { atStart, atEnd } = s.loadAverage;
  const busy = Math.max(atStart, atEnd) > cores ? ' **The machine was busy**: figures are noisy and lower than a quiet run\'s.' : '';
  const generator = s.loadGenerator ?? `autocannon in the bench process, ${connections} connections`;
  return `Load: ${generator}; the mix: autocannon in the bench process. Server on one core, load generator on the other. ${tailcall} Load average ${atStart} at the start, ${atEnd} at the end, on ${cores} cores.${busy}`;
}

// Private: req/s and latency of every scenario on every peer.
function sideBySide(s: ServingResult): string {
  const cell = (x: ServingOutcome | undefined): string => {
    if (x === undefined) return '—';
    if (!isRun(x)) return `not run: ${x.notRun}`;
    // A server that stalled answers nothing and so makes no client error: say so.
    const stalled = x.requests === 0 ? `none of ${x.requestsSent} requests answered` : '';
    const flags = [wrongFlag(x), stalled, x.clientErrors > 0 ? `${x.clientErrors} client errors` : '', generatorBound(x) ? 'bounded by the load generator' : ''].filter((f) => f !== '');
    return `**${x.requestsPerSecond}** req/s, p50 ${x.latencyP50Ms} / p99 ${x.latencyP99Ms} ms${flags.length === 0 ? '' : ` (${flags.join('; ')})`}`;
  };
  return ['| Load | ' + SERVING_PEERS.map((p) => PEER_LABELS[p]).join(' | ') + ' |', '| --- |' + ' --- |'.repeat(SERVING_PEERS.length),
    ...scenariosOf(s).map((scenario) => `| ${SCENARIO_LABELS[scenario]} | ${SERVING_PEERS.map((p) => cell(s.scenarios[scenario][p])).join(' | ')} |`),
  ].join('\n');
}

// Private: one row per run: the checked warm-up, upstream calls, errors, the generator's load.
function details(s: ServingResult): string {
  const rows = scenariosOf(s).flatMap((scenario) => SERVING_PEERS.flatMap((peer) => {
    const x = s.scenarios[scenario][peer];
    if (!isRun(x)) return [];
    const check = x.check === null ? 'unchecked (prebuilt answers)' : `${x.check.checked} / ${wrongAnswers(x.check)}${x.check.examples.length === 0 ? '' : ` (e.g. ${x.check.examples[0]!.replace(/\|/g, '\\|')})`}`;
    return [`| ${SCENARIO_LABELS[scenario]} · ${PEER_LABELS[peer]} | ${x.requestsPerSecond} | ${x.latencyP50Ms} | ${x.latencyP99Ms} | ${x.bytesPerResponse} | ${check} | ${x.upstreamCalls ?? '—'} | ${x.clientErrors} | ${x.loadGeneratorCpuPercent} % |`];
  }));
  return ['| Scenario · peer | req/s | p50 ms | p99 ms | bytes/answer (headers included) | answers checked / wrong | upstream calls (measured run) | client errors | load generator CPU |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- |', ...rows].join('\n');
}

// Private: the small queries alone and among deep pages.
function mix(s: ServingResult): string {
  const { alone, withDeep } = s.mix;
  const row = (name: string, x: typeof alone): string => `| ${name} | ${x.requestsPerSecond} | ${x.small.requestsPerSecond} | ${x.small.p50} | ${x.small.p99} | `
    + `${x.deep ? `${x.deep.requestsPerSecond} | ${x.deep.p50} | ${x.deep.p99}` : '— | — | —'} | ${x.clientErrors} | ${x.upstreamCalls} | ${x.loadGeneratorCpuPercent} % |`;
  return [`**Mix**, vending-graph with the response cache off: one 50-site deep page to every ${withDeep.smallPerDeep} small queries (random goods codes) over the same connections, beside the small queries alone.`
    + ` Small queries' p99 in the mix ÷ alone: **${Math.round((withDeep.small.p99 / alone.small.p99) * 100) / 100}**.`, '',
  '| Run | req/s, all | small req/s | small p50 ms | small p99 ms | deep req/s | deep p50 ms | deep p99 ms | client errors | upstream calls | load generator CPU |',
  '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |', row('small queries alone', alone), row('with deep pages', withDeep)].join('\n');
}

// Private: the scenarios in the report's order.
function scenariosOf(s: ServingResult): ServingScenario[] {
  return (['small', 'site', 'cities', 'deep', 'sitesNear'] as const).filter((scenario) => s.scenarios[scenario] !== undefined);
}
