/**
 * `bench/results/latest.json`: the headline ratios and counts the issue names, the targets
 * judged against them, the run's settings and machine, and every raw figure.
 */
import * as config from '../config.js';
import { round } from '../load/load.js';
import type { Measurements } from '../measure/all.js';
import type { CatalogIndexResult } from '../measure/catalog-index.js';
import type { Machine } from '../processes/machine.js';
import type { ScaleOutResult } from '../scenarios/scale-out.js';
import { warmVsBare } from './in-turn.js';
import { liveTargets } from './live.js';
import { servingTargets } from './serving.js';
import { startTargets } from './start.js';
import type { Target } from './target.js';

/** The whole results file. */
export type Results = ReturnType<typeof buildResults>;

/** Derive ratios, headline counts and targets from the measurements. */
export function buildResults(m: Measurements, machine: Machine, run: { date: string; durationSeconds: number }) {
  const headline = headlineOf(m);
  return {
    date: run.date,
    shortRun: config.SECONDS < 15,
    durationSeconds: run.durationSeconds,
    ...headline,
    scaleOut: m.scaleOut.map(scaleOutRow),
    targets: judge(m, headline, run.durationSeconds),
    machine,
    settings: settings(),
    raw: stripBodies(m),
  };
}

type Headline = ReturnType<typeof headlineOf>;

// Private: the figures the issue names, under the names it gives them.
function headlineOf(m: Measurements) {
  const g = m.gateway;
  const perProduct = m.restClients.find((r) => r.strategy === 'per product');
  const listPages = m.restClients.find((r) => r.strategy === 'list pages');
  return {
    ratios: {
      // The medians of the slices in turn; the 15 s runs' ratio in results from before them.
      warmVsBare: m.warmInTurn?.deep.throughput.median ?? round(g.warmDeep.requestsPerSecond / m.bare.deep.requestsPerSecond, 3),
      warmVsMeshCache: round(g.warmDeep.requestsPerSecond / m.mesh.warmDeep.requestsPerSecond, 2),
      smallWarmVsBare: m.warmInTurn?.small.throughput.median ?? round(g.warmSmall.requestsPerSecond / m.bare.small.requestsPerSecond, 3),
      smallWarmVsMeshCache: round(g.warmSmall.requestsPerSecond / m.mesh.warmSmall.requestsPerSecond, 2),
      coldLatencyMeshOverGateway: round(m.mesh.cold.latencyMs / g.cold.latencyMs, 2),
      coldLatencyRestClientOverGateway: round((perProduct?.latencyMs ?? NaN) / g.cold.latencyMs, 2),
      scaleOutCallsSpread: callsSpread(m.scaleOut),
    },
    upstreamCalls: {
      coldDeep: g.cold.upstreamCalls,
      coldDeepMinimum: m.coldDeepMinimum.total,
      warmDeep: g.warmDeep.upstreamCalls,
      warmSmall: g.warmSmall.upstreamCalls,
      meshColdDeep: m.mesh.cold.upstreamCalls,
      restClientPerProduct: perProduct?.calls ?? NaN,
      restClientListPages: listPages?.calls ?? NaN,
      mixedPer1000Requests: { gateway: g.mixed.upstreamCallsPer1000Requests, meshCache: m.mesh.mixed.upstreamCallsPer1000Requests },
    },
    roundTrips: {
      coldDeep: g.cold.roundTrips,
      meshColdDeep: m.mesh.cold.roundTrips,
      restClientPerProduct: perProduct?.roundTrips ?? NaN,
      restClientListPages: listPages?.roundTrips ?? NaN,
    },
    tokenRequestsAtExpiry: g.expiry.tokenRequestsAfterExpiry,
    clientErrorsAtExpiry: g.expiry.clientErrors,
    rssMbFullCatalog: g.rss.rssMb,
    rssMbFullCatalogAfterLoad: g.rssAfterLoad.rssMb,
    // After a forced full GC: beside the figures above, which the budgets judge.
    rssMbFullCatalogAfterGc: g.rss.afterGcRssMb,
    rssMbFullCatalogAfterLoadAfterGc: g.rssAfterLoad.afterGcRssMb,
    catalogIndex: catalogIndexHeadline(m.catalogIndex),
  };
}

/** The catalog index's figures in brief: build, memory, p99 of each query in the gateway (one at a time). */
export function catalogIndexHeadline(x: CatalogIndexResult) {
  return {
    buildMs: x.build.latencyMs,
    buildUpstreamCalls: x.build.upstreamCalls,
    buildInProcessMs: { sites: x.probe.buildMs.sites.first, products: x.probe.buildMs.products.first },
    addedRssMb: x.memory.addedRssMb,
    addedHeapUsedMb: x.memory.addedHeapUsedMb,
    rssMbWithIndex: x.memory.withIndexNoGc.rssMb,
    rssMbWithIndexAfterLoad: x.memory.afterLoad.rssMb,
    p99MsInGateway: { sitesNear: x.sitesNear.sequential.inGateway.p99, availability: x.availability.sequential.inGateway.p99 },
  };
}

/**
 * The catalog index's targets: p99 of each query in the gateway on a warm index, judged one
 * request at a time (what the query costs; under load a request also waits for the others, shown
 * beside it), and RSS with the index within the budget, judged as for the whole catalog cached:
 * a fresh gateway with the data loaded, 1 s later, no forced GC (the readings after the warm
 * runs are shown beside it).
 */
export function catalogIndexTargets(x: CatalogIndexResult): Target[] {
  const limit = config.INDEX_P99_TARGET_MS;
  const query = (name: string, q: CatalogIndexResult['sitesNear']): Target => ({
    what: `${name} p99 in the gateway, warm index, one request at a time`,
    target: `< ${limit} ms`,
    actual: `${q.sequential.inGateway.p99} ms (over HTTP ${q.sequential.http.p99} ms; under load, ${q.load.requestsPerSecond} req/s: `
      + `${q.load.inGateway.p99} ms in the gateway, ${q.load.latencyP99Ms} ms over HTTP)`,
    met: q.sequential.inGateway.p99 < limit,
  });
  const m = x.memory;
  const budget = config.RSS_BUDGET_MB;
  return [
    { what: 'Catalog index build (first index query, cold gateway): upstream calls', target: `report (every page once: ${x.build.minimumCalls.total})`,
      actual: `${x.build.upstreamCalls} in ${x.build.latencyMs} ms, ${x.build.roundTrips} round trips (${Object.values(x.build.roundTripsByPath ?? {}).join(' and ')} for each walk on its own)`, met: null },
    query('sitesNear', x.sitesNear),
    query('Product.availability', x.availability),
    { what: 'RSS with the catalog index built (fresh gateway)', target: `< ${budget} MB`,
      actual: `${m.withIndexNoGc.rssMb} MB (index adds ${m.addedRssMb} MB after GC; after the warm runs ${m.afterLoad.rssMb} MB, `
        + `${m.afterLoadGc.rssMb} MB after GC, peak ${m.afterLoad.peakRssMb} MB)`,
      met: m.withIndexNoGc.rssMb < budget },
  ];
}

// Private: the issue's targets beside this run's figures.
function judge(m: Measurements, h: Headline, seconds: number): Target[] {
  const { ratios: r, upstreamCalls: calls } = h;
  const e = m.gateway.expiry;
  const t = (what: string, target: string, actual: string | number, met: Target['met']): Target => ({ what, target, actual: String(actual), met });
  // A ratio over the bare server overstates the gateway when the load generator, not the bare server, was the limit.
  const bareBound = (x: { loadGeneratorCpuPercent: number }): string => (x.loadGeneratorCpuPercent >= 85 ? ` (bare run bounded by the load generator, ${x.loadGeneratorCpuPercent} % CPU)` : '');
  const mixed = `gateway ${calls.mixedPer1000Requests.gateway} calls/1000 req, p99 ${m.gateway.mixed.latencyP99Ms} ms; `
    + `Mesh ${calls.mixedPer1000Requests.meshCache} calls/1000 req, p99 ${m.mesh.mixed.latencyP99Ms} ms`;
  return [
    t('Cold deep query: upstream calls', `≤ coldDeepMinimum (${calls.coldDeepMinimum})`, calls.coldDeep, calls.coldDeep <= calls.coldDeepMinimum),
    t('Cold deep query: sequential round trips', '≤ 3', h.roundTrips.coldDeep, h.roundTrips.coldDeep <= 3),
    t('Cold deep query: Mesh latency ÷ gateway latency', '≥ 5', r.coldLatencyMeshOverGateway, r.coldLatencyMeshOverGateway >= 5),
    t('Warm: upstream calls (deep + small runs)', '0', `${calls.warmDeep} + ${calls.warmSmall}`, calls.warmDeep + calls.warmSmall === 0),
    warmVsBare(m, r.warmVsBare, bareBound),
    t('Warm 10-site deep req/s ÷ Mesh with cache', '≥ 2', r.warmVsMeshCache, r.warmVsMeshCache >= 2),
    t('Small query req/s ÷ Mesh with cache', '≥ 2', r.smallWarmVsMeshCache, r.smallWarmVsMeshCache >= 2),
    t('Mixed workload beside Mesh with cache', 'report', mixed, null),
    // Without upstream calls after the expiry nothing met the dead token: not exercised, so not judged.
    t('Token expiry under load: token requests', '1', `${h.tokenRequestsAtExpiry} (${e.upstreamCallsAfterExpiry} upstream calls after the expiry, ${e.tokenTimeoutAnswers} refused)`,
      e.upstreamCallsAfterExpiry === 0 ? null : h.tokenRequestsAtExpiry === 1),
    t('Token expiry under load: client errors', '0', h.clientErrorsAtExpiry, h.clientErrorsAtExpiry === 0),
    t('RSS with the whole catalog cached', `< ${config.RSS_BUDGET_MB} MB`, `${h.rssMbFullCatalog} MB (${h.rssMbFullCatalogAfterGc} MB after a forced GC, not judged)`, h.rssMbFullCatalog < config.RSS_BUDGET_MB),
    t('RSS with the whole catalog cached, after the load runs', `≤ ${config.RSS_AFTER_LOAD_BUDGET_MB} MB`,
      `${h.rssMbFullCatalogAfterLoad} MB (${h.rssMbFullCatalogAfterLoadAfterGc} MB after a forced GC, not judged)`, h.rssMbFullCatalogAfterLoad <= config.RSS_AFTER_LOAD_BUDGET_MB),
    ...catalogIndexTargets(m.catalogIndex),
    ...scaleOutTargets(m.scaleOut, r.scaleOutCallsSpread),
    ...servingTargets(m.serving),
    ...liveTargets(m.live),
    ...startTargets(m.start),
    t('`bench/run.ts` end to end (build not included)', '< 15 min', `${seconds} s`, seconds < 900),
  ];
}

/** One replica count of the scale-out scenario, as `latest.json` and RESULTS.md give it. */
export function scaleOutRow(x: ScaleOutResult) {
  return {
    replicas: x.replicas,
    reqPerS: x.sharedCache.requestsPerSecond,
    p99Ms: x.sharedCache.latencyP99Ms,
    upstreamCallsPer1000: x.sharedCache.upstreamCallsPer1000Requests,
    tokenRequestsAtExpiry: x.expiry.tokenRequestsAfterExpiry,
    clientErrors: x.sharedCache.clientErrors + x.expiry.clientErrors,
    /** Redis operations that failed and fell back to the replica alone (both runs). */
    redisErrors: x.sharedCache.redisErrors + x.expiry.redisErrors,
  };
}

// Private: max ÷ min of upstream calls per 1,000 requests over the replica counts (1 = flat).
// Null when one count made no call and another did: no ratio says how far apart they are.
function callsSpread(runs: ScaleOutResult[]): number | null {
  const per1000 = runs.map((x) => x.sharedCache.upstreamCallsPer1000Requests);
  const max = Math.max(...per1000);
  const min = Math.min(...per1000);
  if (max === 0) return 1;
  return min === 0 ? null : round(max / min, 3);
}

// Private: the scale-out targets (upstream calls flat across replica counts, one token request at expiry, no Redis errors).
function scaleOutTargets(runs: ScaleOutResult[], spread: number | null): Target[] {
  const each = (figure: (x: ScaleOutResult) => string | number): string => runs.map((x) => `${x.replicas}: ${figure(x)}`).join(', ');
  const tokens = runs.map((x) => x.expiry.tokenRequestsAfterExpiry);
  // As for the single gateway: a count with no upstream call after the expiry did not exercise it.
  const exercised = runs.every((x) => x.expiry.upstreamCallsAfterExpiry > 0);
  return [
    { what: `Scale-out ${runs.map((x) => x.replicas).join(' / ')} replicas: upstream calls per 1,000 requests, max ÷ min`, target: '≤ 1.1 (flat within 10 %)',
      actual: `${spread ?? 'n/a'} (${each((x) => x.sharedCache.upstreamCallsPer1000Requests)})`, met: spread !== null && spread <= 1.1 },
    { what: 'Scale-out: token requests at expiry, each replica count', target: '1',
      actual: `${each((x) => `${x.expiry.tokenRequestsAfterExpiry} (${x.expiry.upstreamCallsAfterExpiry} calls after)`)}`, met: exercised ? tokens.every((n) => n === 1) : null },
    // Redis is up throughout: every error is a replica that took its own lag for an outage.
    { what: 'Scale-out: Redis errors (Redis up), each replica count, both runs', target: '0',
      actual: each((x) => x.sharedCache.redisErrors + x.expiry.redisErrors), met: runs.every((x) => x.sharedCache.redisErrors + x.expiry.redisErrors === 0) },
  ];
}

// Private: what the run was configured with.
function settings() {
  return {
    catalog: config.CATALOG,
    upstreamLatencyMs: config.UPSTREAM_LATENCY_MS,
    upstreamMaxPageSize: config.UPSTREAM_MAX_PAGE_SIZE,
    connections: config.CONNECTIONS,
    seconds: config.SECONDS,
    warmupSeconds: config.WARMUP_SECONDS,
    coldSites: config.COLD_SITES,
    warmSites: config.WARM_SITES,
    smallGoodsCode: config.SMALL_GOODS_CODE,
    clientConnections: config.CLIENT_CONNECTIONS,
    meshMaxSockets: config.MESH_MAX_SOCKETS,
    meshCacheTtlMs: config.MESH_CACHE_TTL_MS,
    gatewayLogLevel: config.GATEWAY_LOG_LEVEL,
    expiryCacheTtlS: config.EXPIRY_CACHE_TTL_S,
    scaleOut: {
      replicas: config.SCALE_OUT_REPLICAS,
      warmupRequests: config.SCALE_OUT_WARMUP_REQUESTS,
      requests: config.SCALE_OUT_REQUESTS,
      sitesTtlS: config.SCALE_OUT_SITES_TTL_S,
      maxSeconds: config.SCALE_OUT_MAX_SECONDS,
      expirySeconds: config.SCALE_OUT_EXPIRY_SECONDS,
    },
    catalogIndex: {
      refreshS: config.INDEX_REFRESH_S,
      sequentialRequests: config.INDEX_SEQUENTIAL_REQUESTS,
      probeQueries: config.INDEX_PROBE_QUERIES,
      p99TargetMs: config.INDEX_P99_TARGET_MS,
    },
    serving: {
      citiesPage: config.CITIES_PAGE,
      sitesNearChecks: config.SITES_NEAR_CHECKS,
      checkConcurrency: config.CHECK_CONCURRENCY,
      mixSmallPerDeep: config.MIX_SMALL_PER_DEEP,
      baseline: config.SERVING_BASELINE,
    },
    live: {
      sites: config.LIVE_SITES,
      subscribersPerSite: config.LIVE_SUBSCRIBERS_PER_SITE,
      pollS: config.LIVE_POLL_S,
      seconds: config.LIVE_SECONDS,
      changesPerSecond: config.LIVE_CHANGES_PER_SECOND,
    },
    rssBudgetMb: config.RSS_BUDGET_MB,
    rssAfterLoadBudgetMb: config.RSS_AFTER_LOAD_BUDGET_MB,
    cores: { systemUnderTest: config.SUT_CORE, loadGeneratorAndMock: config.LOAD_CORE },
  };
}

// Private: the raw measurements with replayed bodies reduced to their size.
function stripBodies(m: Measurements) {
  const strip = <T extends { body: Buffer }>({ body, ...rest }: T) => ({ ...rest, responseBytes: body.length });
  return {
    ...m,
    gateway: { ...m.gateway, warmDeep: strip(m.gateway.warmDeep), warmSmall: strip(m.gateway.warmSmall) },
    mesh: { ...m.mesh, warmDeep: strip(m.mesh.warmDeep), warmSmall: strip(m.mesh.warmSmall) },
  };
}
