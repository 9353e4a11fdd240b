/**
 * `bench/RESULTS.md`: the run's figures for people: targets met or not, then each scenario's
 * table, the chart, and the assumptions behind the numbers.
 */
import type { LoadResult } from '../load/load.js';
import { catalogIndexAssumption, catalogIndexSection } from './catalog-index.js';
import { inTurnHow, inTurnTable } from './in-turn.js';
import { liveAssumption, liveSection } from './live-markdown.js';
import type { Results } from './results.js';
import { scaleOutAssumption, scaleOutSection } from './scale-out.js';
import { servingAssumption, servingSection } from './serving-markdown.js';
import type { Target } from './target.js';

type LoadRow = Pick<LoadResult, 'requestsPerSecond' | 'latencyP50Ms' | 'latencyP99Ms' | 'bytesPerResponse' | 'clientErrors' | 'loadGeneratorCpuPercent'>;

/** Load generator CPU (% of its core) from which a run counts as bounded by the generator. */
const SATURATED_CPU = 85;

/** The whole document. */
export function resultsMarkdown(r: Results): string {
  return [
    header(r),
    targetsTable(r),
    '![Throughput and latency side by side](results/chart.svg)',
    throughputTable(r),
    coldTable(r),
    mixedAndExpiry(r),
    servingSection(r),
    catalogIndexSection(r),
    scaleOutSection(r),
    liveSection(r),
    assumptions(r),
  ].join('\n\n') + '\n';
}

// Private: title, date, machine, settings, how to reproduce.
function header(r: Results): string {
  const m = r.machine;
  const s = r.settings;
  return [
    '# Benchmark results',
    '',
    `Run of ${r.date} (\`npm run bench\`, ${r.durationSeconds} s end to end for \`bench/run.ts\`)${r.shortRun ? `: **a short run** (\`BENCH_SECONDS=${s.seconds}\`), not the issue's 15 s per load run` : ''}.`,
    `Machine: ${m.cpuModel}, ${m.cores} cores, ${m.memoryGb} GB, Node ${m.node}, ${m.platform}, kernel ${m.kernel}; load average ${m.loadAverageAtStart} at start;`
      + ` ${m.pinned ? `server under test pinned to core 0, load generator (cores allowed: ${m.loadGeneratorCores}) and mock upstream to core 1 (\`taskset\`)` : '**not pinned** (no `taskset`)'}.`,
    `Mock upstream: ${s.catalog.cities} cities, ${s.catalog.sites} sites × ${s.catalog.pointsPerSite} points × ${s.catalog.lanesPerPoint} lanes, ${s.catalog.products} products;`
      + ` ${s.upstreamLatencyMs} ms per call; pageSize capped at ${s.upstreamMaxPageSize}. Load: ${s.connections} connections, ${s.seconds} s after ${s.warmupSeconds} s of warm-up;`
      + ` the warm runs: ${r.raw.warmLoadGenerator ?? 'autocannon'}; the serving scenarios: ${r.raw.serving?.loadGenerator ?? 'autocannon'}; the others: autocannon in the bench process (*How it is measured* says why).`,
    ...(m.loadAverageAtStart >= 1 ? [`**The machine was busy** (load average ${m.loadAverageAtStart} at start, on ${m.cores} cores): other work shared the cores, so these figures are noisy and lower than a quiet run's.`] : []),
    `Raw figures: \`bench/results/latest.json\`.`,
  ].join('\n');
}

// Private: the issue's targets beside the figures.
function targetsTable(r: Results): string {
  const mark = (met: Target['met']): string => (met === null ? '—' : met === 'unmeasured' ? '⚠️ not measured' : met ? '✅ met' : '❌ not met');
  return ['## Targets', '', '| Target | Issue | This run | |', '| --- | --- | --- | --- |',
    ...r.targets.map((t) => `| ${t.what} | ${t.target} | ${t.actual} | ${mark(t.met)} |`)].join('\n');
}

// Private: the warm load runs, with the load generator's CPU.
function throughputTable(r: Results): string {
  const { gateway: g, bare: b, mesh: m } = r.raw;
  const rows: Array<[string, LoadRow, number | string]> = [
    ['bare node:http · deep', b.deep, '—'], ['vending-graph · deep', g.warmDeep, g.warmDeep.upstreamCalls], ['Mesh + response cache · deep', m.warmDeep, m.warmDeep.upstreamCalls],
    ['bare node:http · small', b.small, '—'], ['vending-graph · small', g.warmSmall, g.warmSmall.upstreamCalls], ['Mesh + response cache · small', m.warmSmall, m.warmSmall.upstreamCalls],
  ];
  const saturated = rows.filter(([, x]) => x.loadGeneratorCpuPercent >= SATURATED_CPU).map(([name, x]) => `${name} (${x.loadGeneratorCpuPercent} %)`);
  const inTurn = r.raw.warmInTurn;
  return ['## Warm throughput', '',
    `10-site deep query and small query (one product by goods code), ${r.settings.connections} connections, load: ${r.raw.warmLoadGenerator ?? 'autocannon'}.`
      + ` Ratios: gateway ÷ bare ${r.ratios.warmVsBare} (deep), ${r.ratios.smallWarmVsBare} (small)${inTurn === undefined ? '' : ', the medians of the pairs in turn below'};`
      + ` gateway ÷ Mesh ${r.ratios.warmVsMeshCache} (deep), ${r.ratios.smallWarmVsMeshCache} (small).`
      + (inTurn === undefined ? '' : ' The bare server\'s rows are its slices in turn taken together (its rate over all of them, the medians of their p50 and p99).'),
    '', '| Server · query | req/s | p50 ms | p99 ms | bytes/answer (headers included) | upstream calls | client errors | load generator CPU |', '| --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows.map(([name, x, calls]) => `| ${name} | ${x.requestsPerSecond} | ${x.latencyP50Ms} | ${x.latencyP99Ms} | ${x.bytesPerResponse} | ${calls} | ${x.clientErrors} | ${x.loadGeneratorCpuPercent} % |`),
    ...(saturated.length === 0 ? [] : ['', `The load generator was (nearly) saturated on: ${saturated.join(', ')}. Those servers may be faster than shown: their req/s is a lower bound, and a ratio with one of them as divisor an upper bound.`]),
    ...(inTurn === undefined ? [] : ['', `**In turn** (the ratios to the bare server): ${inTurnHow(inTurn.deep)}; the deep page's every key asked again once its data's TTL from the priming request had passed, so that nothing expires during the slices.`,
      '', inTurnTable([['10-site deep query', inTurn.deep], ['small query', inTurn.small]])]),
  ].join('\n');
}

// Private: the cold deep query on each server and for clients without a gateway.
function coldTable(r: Results): string {
  const { gateway: g, mesh: m } = r.raw;
  const byPath = (calls: Record<string, number>): string => Object.entries(calls).map(([path, n]) => `${path} ${n}`).join(', ');
  const p = r.raw.coldDeepMinimum;
  return ['## Cold deep query (50 sites with city, points, lanes, products)', '',
    `Minimum upstream calls: ${p.sitePages} site page(s) + min(${p.distinctProducts} distinct products, ${p.productListPages} product-list pages) = ${p.total}.`,
    '', '| Who | latency ms | upstream calls | sequential round trips | most calls in flight | calls by path |', '| --- | --- | --- | --- | --- | --- |',
    `| vending-graph | ${g.cold.latencyMs} | ${g.cold.upstreamCalls} | ${g.cold.roundTrips} | ${g.cold.upstreamTimings.maxInFlight} | ${byPath(g.cold.upstreamCallsByPath)} |`,
    `| Mesh | ${m.cold.latencyMs} | ${m.cold.upstreamCalls} | ${m.cold.roundTrips} | ${m.cold.upstreamTimings.maxInFlight} | ${byPath(m.cold.upstreamCallsByPath)} |`,
    ...r.raw.restClients.map((c) => `| client without a gateway, ${c.strategy} | ${c.latencyMs} | ${c.calls} (token included) | ${c.roundTrips} | ${c.maxInFlight} | |`),
  ].join('\n');
}

// Private: VmRSS after a forced full GC; results from before it was read have none.
function afterGc(x: { afterGcRssMb?: number }): string {
  return x.afterGcRssMb === undefined ? 'not read' : `${x.afterGcRssMb} MB`;
}

// Private: the mixed workload beside Mesh, token expiry, memory.
function mixedAndExpiry(r: Results): string {
  const { gateway: g, mesh: m } = r.raw;
  const row = (name: string, x: typeof g.mixed): string =>
    `| ${name} | ${x.requestsPerSecond} | ${x.latencyP50Ms} | ${x.latencyP99Ms} | ${x.upstreamCallsPer1000Requests} | ${x.upstreamTimings.meanMs} | ${x.clientErrors} | ${x.loadGeneratorCpuPercent} % |`;
  const e = g.expiry;
  return ['## Mixed workload', '', `Upstream call ms is the mean time the mock took per call (its latency is ${r.settings.upstreamLatencyMs} ms; far above that, the mock's core was the bottleneck).`, '',
    '| Server | req/s | p50 ms | p99 ms | upstream calls per 1,000 requests | upstream call ms | client errors | load generator CPU |', '| --- | --- | --- | --- | --- | --- | --- | --- |',
    row('vending-graph', g.mixed), row('Mesh + response cache', m.mixed),
    '', '## Token expiry under load, memory', '',
    `Every upstream token expired ${e.expiredAtSeconds} s into ${e.seconds} s of the mixed workload on a freshly started gateway with ${r.settings.expiryCacheTtlS} s cache TTLs: ${e.tokenRequestsAfterExpiry} token request(s) after the expiry, `
      + `${e.upstreamCallsAfterExpiry} upstream calls after it (${e.tokenTimeoutAnswers} refused as "token is timeout"), ${e.clientErrors} client errors in ${e.requests} requests (${e.requestsPerSecond} req/s).`,
    '', `Gateway RSS with the whole catalog cached: a fresh gateway, then ${g.rss.walkRequests} requests walking every site page (100 sites with points, lanes, products) and every product page `
      + `(${g.rss.walkUpstreamCalls} upstream calls, ${g.rss.walkMs} ms): **${g.rss.rssMb} MB** (peak ${g.rss.peakRssMb} MB). `
      + `The gateway that ran the cold, warm and mixed scenarios, after the same walk: **${g.rssAfterLoad.rssMb} MB** (peak ${g.rssAfterLoad.peakRssMb} MB). Mesh after its runs: ${m.rssMbAfterRuns} MB. `
      + 'Each is VmRSS 1 s after the walk, with its garbage not yet collected, as a deployment would see it; the budgets judge these. '
      + `After a forced full GC and 1 s more, not judged, what the data itself keeps: ${afterGc(g.rss)} fresh, ${afterGc(g.rssAfterLoad)} after the load runs.`,
  ].join('\n');
}

// Private: what each figure assumes.
function assumptions(r: Results): string {
  const s = r.settings;
  const versions = Object.entries(r.raw.mesh.versions).map(([name, v]) => `${name} ${v}`).join(', ');
  return ['## How it is measured', '',
    '- **Cold**: each server freshly started; the gateway has passed `/readyz` (so it holds its token, as behind a load balancer), Mesh was handed a token; one `{ __typename }` request first, so schema loading is not counted. Round trips are waves over the mock\'s arrival and finish times: a call is one wave deeper than the deepest call that had finished before it arrived.',
    `- **Without a gateway**: the client fetches a token, the 50-site page, then either one product detail per distinct goods code over ${s.clientConnections} connections (a browser's or OkHttp's per-host limit), or, carefully, the site page and product page 1 together and then the other product pages at once. Measured against the mock with undici.`,
    '- **Warm**: one priming request (checked for errors), a warm-up, then the measured run, every answer read for GraphQL `errors`; upstream calls are counted during the measured run only. The bare server answers with the gateway\'s own bytes for the same requests, after reading and parsing the request body and looking its key up in a `Map` (`bench/peers/bare-server.ts`); it runs only in the slices in turn with the gateway (`bench/scenarios/interleaved.ts`: the machine\'s speed drifts within seconds, so runs minutes apart measured the drift as much as the servers). In the slices the small query\'s answers are read from both servers; the deep page\'s 45 KB answers from neither (reading one costs wrk about 36 µs, most of its core at the rate both servers reach), its one key\'s answer checked just before the slices and no upstream call made in them, so each answer was that one again. A ratio whose run or slice had the load generator at 90 % of its core or more is not given.',
    '- **Load generators**: wrk (`bench/load/wrk.ts`, one thread on the load generator\'s core) for every run with a ratio to the bare server (warm, serving) and Mesh\'s warm runs beside them; autocannon in the bench process stays where wrk cannot do the job, and none of these is a ratio to the bare server: the mix files each answer\'s time under the kind of request it answered, scale-out spreads one run\'s connections over the replicas in one histogram, and the mixed workload and token expiry name each failed request by its operation (wrk\'s `response` callback is not told which request an answer is for); the catalog index\'s runs, which draw fresh arguments per request, keep it too, their generator at about 40 % of its core.',
    '- **Mixed**: site list pages, deep pages of the first 100 sites, site details, products by goods code, product pages and cities, arguments drawn uniformly at random (`bench/workloads/mixed.ts` has the weights); Mesh gets the same data through its REST-shaped fields. Client errors include answers with GraphQL `errors`. Upstream calls per 1,000 requests: every call made after the warm-up had gone quiet, until the upstream was quiet again after the run, per request sent (a request still open when the run stopped was sent, and its calls go on).',
    `- **Token expiry**: a freshly started gateway under the mixed workload, \`expireAllTokens()\` halfway; token requests counted from that moment. Its cache TTLs are ${r.settings.expiryCacheTtlS} s (sites, products, cities), so that the load keeps reaching the upstream: with the defaults the workload is served from cache within seconds and no call would meet the dead token. With no upstream call after the expiry the target counts as not exercised.`,
    catalogIndexAssumption(r),
    scaleOutAssumption(r),
    servingAssumption(),
    liveAssumption(r),
    `- **Mesh**: ${versions}; composed from \`bench/peers/mesh/openapi.yaml\`; \`CargoLane.product\` via \`@resolveTo\` on the product-detail operation (one call per lane); bearer token from \`{env.UPSTREAM_TOKEN}\`; response cache for everyone, TTL ${s.meshCacheTtlMs / 1000} s; upstream sockets capped at ${s.meshMaxSockets}.`,
    `- The gateway runs with \`NODE_ENV=production\` and its defaults (log level ${s.gatewayLogLevel}).`,
  ].join('\n');
}
