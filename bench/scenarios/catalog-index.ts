/**
 * Scenario (g), the catalog index on one gateway (started by `../measure/catalog-index.ts` with
 * its log in a file and a way to force a GC):
 *
 * - Build: after a `{ __typename }` warm-up, the first index query (`sitesNear` and
 *   `searchProducts`, so both parts are built): its latency, the upstream calls it took (the
 *   mock's log) and their sequential round trips.
 * - Memory: RSS (VmRSS) and V8's heapUsed (the gateway's `nodejs_heap_size_used_bytes`) after a
 *   forced full GC, before the first index query and after it; also without the GC, 1 s after
 *   the build; and after the warm runs, without and with a forced GC (with the peak, VmHWM).
 * - Warm: an unmeasured load run of each query (`sitesNear`, `Product.availability`, arguments
 *   varied per request), so that the JIT has seen both; then per query, requests one at a time
 *   and a measured load run; each timed over HTTP by the client and inside the gateway (its
 *   log's `durationMs`).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { SECONDS, UPSTREAM_MAX_PAGE_SIZE, WARMUP_SECONDS } from '../config.js';
import { logOffset, requestDurations } from '../load/gateway-log.js';
import { expectClean, postGraphQL } from '../load/graphql-client.js';
import { summariseLatency, type LatencySummary } from '../load/latency.js';
import { runLoad, type LoadResult } from '../load/load.js';
import { callTimings, countByPath, roundTrips, type CallTimings } from '../load/round-trips.js';
import { forceGc, memoryMb, type RunningProcess } from '../processes/child.js';
import { apiCalls, type BenchMock } from '../processes/mock.js';
import {
  AVAILABILITY_OPERATION, INDEX_BUILD_OPERATION, SITES_NEAR_OPERATION, availabilityRequest, indexBuildRequest, sitesNearRequest,
} from '../workloads/catalog-index.js';
import type { GraphQLRequest } from '../workloads/queries.js';

/** The first index query of a cold gateway. */
export interface IndexBuildResult {
  /** Client-side, request sent to last byte. */
  latencyMs: number;
  /** The gateway's own `durationMs` for it (null if its log line is missing). */
  inGatewayMs: number | null;
  upstreamCalls: number;
  upstreamCallsByPath: Record<string, number>;
  /**
   * Sequential round trips of those API calls. The two walks run side by side, and a call counts
   * as waiting for any call that finished before it arrived, so this can exceed each walk's own.
   */
  roundTrips: number;
  /**
   * Sequential round trips of each list's walk on its own: first page, then the rest, 2; more when
   * the mock, busy writing large pages, reads some of the rest only after others were answered.
   */
  roundTripsByPath: Record<string, number>;
  /** How long the mock took per call, and the most calls in flight at once. */
  upstreamTimings: CallTimings;
  /** Every page of both lists at the walk's page size: what a walk cannot do without. */
  minimumCalls: { sitePages: number; productPages: number; total: number };
}

/** One reading of the gateway's memory, in MB. */
export interface MemoryReading {
  rssMb: number;
  heapUsedMb: number;
}

/** The gateway's memory around the index build. */
export interface IndexMemoryResult {
  /** After the warm-up request and a forced GC: the gateway without its index. */
  beforeIndex: MemoryReading;
  /** 1 s after the first index query, no forced GC: what a gateway holds as it runs. */
  withIndexNoGc: MemoryReading;
  /** Then after a forced GC. */
  withIndex: MemoryReading;
  /** After the warm runs, no forced GC; with the process's peak RSS so far. */
  afterLoad: MemoryReading & { peakRssMb: number };
  /** Then after a forced GC: what the warm runs left behind that is not garbage. */
  afterLoadGc: MemoryReading;
  /** `withIndex − beforeIndex`. */
  addedRssMb: number;
  addedHeapUsedMb: number;
}

/** One query on the warm index. */
export interface IndexQueryResult {
  operation: string;
  /** `CONNECTIONS` connections, arguments varied per request. */
  load: LoadResult & {
    /** The gateway's own timing of the measured run's requests. */
    inGateway: LatencySummary;
    /** API calls during the measured run (0 on a warm index). */
    upstreamCalls: number;
  };
  /** One request at a time (after the warm-up, before the measured load run), in ms. */
  sequential: {
    http: LatencySummary;
    inGateway: LatencySummary;
    /** Results (sites, or lanes) per answer, on average. */
    meanResults: number;
  };
}

/** What the gateway scenario measured. */
export interface IndexGatewayResult {
  build: IndexBuildResult;
  memory: IndexMemoryResult;
  sitesNear: IndexQueryResult;
  availability: IndexQueryResult;
}

/** Sequential requests of each query, and the log file the gateway writes. */
export interface IndexRunOptions {
  sequentialRequests: number;
  logFile: string;
}

/** Build the index on the freshly started gateway `gw`, then measure memory and warm queries. */
export async function indexOnGateway(gw: RunningProcess, mock: BenchMock, options: IndexRunOptions): Promise<IndexGatewayResult> {
  const url = `${gw.url}/graphql`;
  expectClean(await postGraphQL(url, { query: '{ __typename }' }), 'index warm-up');
  await sleep(1000);
  await forceGc(gw.pid);
  const beforeIndex = await memoryOf(gw);
  const build = await firstIndexQuery(url, mock, options.logFile);
  await sleep(1000);
  const withIndexNoGc = await memoryOf(gw);
  await forceGc(gw.pid);
  const withIndex = await memoryOf(gw);
  for (const next of [sitesNearRequest, availabilityRequest]) await runLoad({ url, seconds: WARMUP_SECONDS, nextBody: () => JSON.stringify(next(mock)) });
  await mock.untilQuiet();
  const sitesNear = await warmQuery(url, mock, options, SITES_NEAR_OPERATION, () => sitesNearRequest(mock),
    (data) => (data as { sitesNear: unknown[] }).sitesNear.length);
  const availability = await warmQuery(url, mock, options, AVAILABILITY_OPERATION, () => availabilityRequest(mock),
    (data) => (data as { product: { availability: unknown[] } | null }).product?.availability.length ?? 0);
  const afterLoad = { ...(await memoryOf(gw)), peakRssMb: memoryMb(gw.pid).peak };
  await forceGc(gw.pid);
  const afterLoadGc = await memoryOf(gw);
  return {
    build,
    memory: {
      beforeIndex, withIndexNoGc, withIndex, afterLoad, afterLoadGc,
      addedRssMb: withIndex.rssMb - beforeIndex.rssMb,
      addedHeapUsedMb: round1(withIndex.heapUsedMb - beforeIndex.heapUsedMb),
    },
    sitesNear,
    availability,
  };
}

// Private: the first index query, its upstream calls and the gateway's own timing of it.
async function firstIndexQuery(url: string, mock: BenchMock, logFile: string): Promise<IndexBuildResult> {
  await mock.reset();
  const from = logOffset(logFile);
  const answer = expectClean(await postGraphQL(url, indexBuildRequest(mock)), 'first index query');
  if ((answer.json.data as { sitesNear: unknown[] }).sitesNear.length === 0) throw new Error('first index query: no site near a site');
  await sleep(300); // Let any call started after the answer show in the log, and the log line be written.
  const { log, spans } = await mock.log();
  const api = log.filter((entry) => entry.path !== '/oauth/token');
  const inGateway = await requestDurations(logFile, from, logOffset(logFile), INDEX_BUILD_OPERATION);
  const sitePages = Math.ceil(mock.siteCodes.length / UPSTREAM_MAX_PAGE_SIZE);
  const productPages = Math.ceil(mock.goodsCodes.length / UPSTREAM_MAX_PAGE_SIZE);
  return {
    latencyMs: Math.round(answer.ms),
    inGatewayMs: inGateway[0] ?? null,
    upstreamCalls: api.length,
    upstreamCallsByPath: countByPath(log),
    roundTrips: roundTrips(spans, (path) => path !== '/oauth/token'),
    roundTripsByPath: Object.fromEntries([...new Set(api.map((entry) => entry.path))].map((path) => [path, roundTrips(spans, (p) => p === path)])),
    upstreamTimings: callTimings(spans),
    minimumCalls: { sitePages, productPages, total: sitePages + productPages },
  };
}

// Private: requests one at a time, then a measured load run, of one query with fresh arguments each time.
async function warmQuery(url: string, mock: BenchMock, options: IndexRunOptions, operation: string,
  next: () => GraphQLRequest, results: (data: unknown) => number): Promise<IndexQueryResult> {
  const http: number[] = [];
  let resultCount = 0;
  const sequentialFrom = logOffset(options.logFile);
  for (let i = 0; i < options.sequentialRequests; i += 1) {
    const answer = expectClean(await postGraphQL(url, next()), `${operation} #${i + 1}`);
    http.push(answer.ms);
    resultCount += results(answer.json.data);
  }
  await sleep(300); // the last lines are written
  const sequentialTo = logOffset(options.logFile);

  await mock.reset();
  const load = await runLoad({ url, seconds: SECONDS, nextBody: () => JSON.stringify(next()), checkBodies: true });
  await sleep(300); // requests abandoned at the run's end finish; their lines are written
  const loadTo = logOffset(options.logFile);
  const upstreamCalls = apiCalls(await mock.calls());
  const durations = (from: number, to: number) => requestDurations(options.logFile, from, to, operation);
  return {
    operation,
    load: { ...load, inGateway: summariseLatency(await durations(sequentialTo, loadTo)), upstreamCalls },
    sequential: {
      http: summariseLatency(http),
      inGateway: summariseLatency(await durations(sequentialFrom, sequentialTo)),
      meanResults: round1(resultCount / Math.max(1, options.sequentialRequests)),
    },
  };
}

// Private: the gateway's heapUsed (its own metrics) and RSS (/proc), now.
async function memoryOf(gw: RunningProcess): Promise<MemoryReading> {
  const text = await (await fetch(`${gw.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith('nodejs_heap_size_used_bytes'));
  const heapUsed = Number(line?.slice(line.lastIndexOf(' ') + 1) ?? NaN);
  return { rssMb: memoryMb(gw.pid).rss, heapUsedMb: round1(heapUsed / 1024 ** 2) };
}

function round1(value: number): number {
  return Math.round(value * 10) / 10;
}
