/**
 * RESULTS.md's catalog-index section (build, memory, warm queries) and how it is measured.
 */
import type { LatencySummary } from '../load/latency.js';
import type { CatalogIndexResult } from '../measure/catalog-index.js';
import type { IndexQueryResult, MemoryReading } from '../scenarios/catalog-index.js';
import type { Results } from './results.js';

/** The section: the build, memory, then both queries under load and one at a time. */
export function catalogIndexSection(r: Results): string {
  // A latest.json from before the scenario existed has none: re-rendering it must still work.
  const x: CatalogIndexResult | undefined = r.raw.catalogIndex;
  if (x === undefined) return '## Catalog index\n\nNot measured in this run.';
  return ['## Catalog index', '', loadNote(x, r.machine.cores), '', build(x, r.settings.upstreamLatencyMs), '', memory(x), '', warm(x, r.settings.connections)].join('\n');
}

// Private: the machine's load around the scenario. The bench's own processes count in it (a
// load run keeps both cores busy), so only a load above the core count says that others were.
function loadNote(x: CatalogIndexResult, cores: number): string {
  const { atStart, atEnd } = x.loadAverage;
  const figures = `load average ${atStart} at its start, ${atEnd} at its end, on ${cores} cores, the bench's own processes included`;
  return Math.max(atStart, atEnd) > cores
    ? `**The machine was busy** during this scenario (${figures}): other work shared the cores, so its p99s and maxima are noisy, and higher than a quiet run's.`
    : `Machine during this scenario: ${figures}.`;
}

// Private: the first index query, and the build of the structures in-process.
function build(x: CatalogIndexResult, latencyMs: number): string {
  const b = x.build;
  const p = x.probe;
  const byPath = Object.entries(b.upstreamCallsByPath).map(([path, n]) => `${path} ${n}`).join(', ');
  const repeated = (s: LatencySummary): string => `p50 ${s.p50} ms, max ${s.max} ms over ${s.samples} more`;
  return `**Build.** The first index query on a cold gateway (\`sitesNear\` and \`searchProducts\`, so both parts): **${b.latencyMs} ms** over HTTP`
    + ` (${b.inGatewayMs ?? 'n/a'} ms in the gateway), **${b.upstreamCalls} upstream calls** (${byPath}; every page once would be ${b.minimumCalls.total}),`
    + ` ${b.roundTrips} sequential round trips over both walks (${roundTripsByPath(b)}), at most ${b.upstreamTimings.maxInFlight} calls in flight, ${b.upstreamTimings.meanMs} ms per call on average at the mock`
    + ` (its latency is ${latencyMs} ms; the rest is the mock writing pages of 100 sites with their lanes, on the load generator's core).`
    + ` In-process, from the ${p.records.sites} sites (${p.records.points} points, ${p.records.lanes} lanes) and ${p.records.products} products:`
    + ` \`buildSitesCatalog\` ${p.buildMs.sites.first} ms the first time (${repeated(p.buildMs.sites.repeated)}),`
    + ` \`buildProductsCatalog\` ${p.buildMs.products.first} ms (${repeated(p.buildMs.products.repeated)}).`
    + ' The sites build runs in one go on the event loop: a refresh holds every request up that long.';
}

// Private: each walk's own round trips (a latest.json from before they were counted has none).
function roundTripsByPath(b: CatalogIndexResult['build']): string {
  const byPath = Object.entries(b.roundTripsByPath ?? {});
  return byPath.length === 0 ? 'each walk on its own: not counted' : `each walk on its own: ${byPath.map(([path, n]) => `${path} ${n}`).join(', ')}`;
}

// Private: the gateway's readings, then the probe's split of the heap.
function memory(x: CatalogIndexResult): string {
  const m = x.memory;
  const row = (name: string, reading: MemoryReading, extra = ''): string => `| ${name} | ${reading.rssMb}${extra} | ${reading.heapUsedMb} |`;
  const h = x.probe.heapUsedMb;
  return ['**Memory** of that gateway (RSS from /proc, heapUsed from its own metrics):', '',
    '| When | RSS MB | heapUsed MB |', '| --- | --- | --- |',
    row('before the first index query, after a forced GC', m.beforeIndex),
    row('1 s after the first index query', m.withIndexNoGc),
    row('then after a forced GC', m.withIndex),
    row('after the warm runs below', m.afterLoad, ` (peak ${m.afterLoad.peakRssMb})`),
    row('then after a forced GC', m.afterLoadGc),
    '',
    `The index adds **${m.addedRssMb} MB of RSS** and **${m.addedHeapUsedMb} MB of heap** (after GC, before and after the first index query):`
      + ' the records, the index structures, and the cache entries the walk primes on the way (pages, sites, products: the same record objects, held by both).'
      + ` In-process, after a full GC: the records take ${h.records} MB of heap, the sites structures ${h.sitesCatalog} MB more, the products structures ${h.productsCatalog} MB more.`,
  ].join('\n');
}

// Private: both queries, under load and one at a time, beside the index's own time in-process.
function warm(x: CatalogIndexResult, connections: number): string {
  const queries: Array<[string, IndexQueryResult, LatencySummary]> = [
    ['`sitesNear`', x.sitesNear, x.probe.queryMicros.sitesNear],
    ['`Product.availability`', x.availability, x.probe.queryMicros.availability],
  ];
  const loadRow = ([name, q]: [string, IndexQueryResult, LatencySummary]): string => {
    const l = q.load;
    return `| ${name} | ${l.requestsPerSecond} | ${l.latencyP50Ms} | ${l.latencyP99Ms} | ${l.inGateway.p50} | ${l.inGateway.p99} | ${l.inGateway.max} | ${l.upstreamCalls} | ${l.clientErrors} | ${l.loadGeneratorCpuPercent} % |`;
  };
  const singleRow = ([name, q, micros]: [string, IndexQueryResult, LatencySummary]): string => {
    const s = q.sequential;
    return `| ${name} | ${s.meanResults} | ${s.http.p50} | ${s.http.p99} | ${s.inGateway.p50} | **${s.inGateway.p99}** | ${s.inGateway.max} | ${micros.p50} | ${micros.p99} |`;
  };
  return [`**Warm index.** Arguments drawn afresh for every request. Under load (${connections} connections):`, '',
    '| Query | req/s | HTTP p50 ms | HTTP p99 ms | in gateway p50 ms | in gateway p99 ms | in gateway max ms | upstream calls | client errors | load generator CPU |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...queries.map(loadRow),
    '', `One request at a time (${x.sitesNear.sequential.http.samples} of each), and the index's own work in-process (\`sitesNear\` / \`availability\` of src/catalog/catalog.ts, ${x.probe.queries} calls):`, '',
    '| Query | results per answer | HTTP p50 ms | HTTP p99 ms | in gateway p50 ms | in gateway p99 ms | in gateway max ms | in-process p50 µs | in-process p99 µs |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...queries.map(singleRow),
  ].join('\n');
}

/** The "How it is measured" bullet. */
export function catalogIndexAssumption(r: Results): string {
  const s = r.settings.catalogIndex;
  if (s === undefined) return '- **Catalog index**: not measured in this run.'; // an older latest.json
  return `- **Catalog index**: a freshly started gateway with its defaults but \`INDEX_REFRESH_S=${s.refreshS}\` (so no rebuild runs during the warm runs; by default the sites part is rebuilt in the background once it is 30 s old),`
    + ' its log in a file instead of /dev/null, and Node started with `--expose-gc` and a preloaded SIGUSR2 handler that runs `gc()`, the only way to force a GC in it from outside.'
    + ' Build: the first index query after a `{ __typename }` warm-up; calls and round trips from the mock\'s log.'
    + ' Memory: RSS is VmRSS, heapUsed the gateway\'s `nodejs_heap_size_used_bytes`; "after a forced GC" readings come 0.5 s after the signal, the others 1 s after the request.'
    + ` The budget (< ${r.settings.rssBudgetMb} MB) is judged as for the whole catalog cached: 1 s after the data was loaded, no forced GC.`
    + ' Warm: `sitesNear` near a random site (within about 2 km), radius 5–10 km, first 20, 3 in 10 with `hasProduct` (a product the site has in stock);'
    + ' `Product.availability` of a random product, `near` a random site, first 20, half with a radius of 5–10 km, half without (`bench/workloads/catalog-index.ts`).'
    + ' First an unmeasured load run of each query (so the JIT has seen both); then, per query, requests one at a time, then a measured load run (upstream calls counted during it).'
    + ' "In gateway" is the gateway\'s own `durationMs` from its log line for each request: from yoga taking the request to its response being ready (HTTP parsing and the socket write excluded); under load it includes waiting for the event loop while other requests run.'
    + ` The ${s.p99TargetMs} ms target is judged on the p99 in the gateway one request at a time: what the query costs, not how long it queued.`
    + ` In-process: a child process on the server core (no gateway running) walks both lists from the mock, normalises them with the gateway's own code, times the builds and ${s.probeQueries} calls of each query on the same argument draws after as many unmeasured, and reads heapUsed after full GCs.`;
}
