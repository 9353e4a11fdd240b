/**
 * The live scenario (`BENCH_ONLY=live` alone): a freshly started gateway with
 * `LIVE_POLL_S` short, 1,000 SSE subscribers to `siteStock` over 50 sites (20 each), and the mock
 * changing random lanes of those sites (`mutateStock`) every second for `LIVE_SECONDS`.
 *
 * 1. Subscribe: every stream open and its first event in; the calls that took are counted apart.
 * 2. The window: counters reset, then each second, at a random moment within it, the bench asks
 *    the mock for `LIVE_CHANGES_PER_SECOND` changes, noting when it asked. (Asked on the whole
 *    second, every change would fall at one of two fixed phases of a 2 s poll, and the latency
 *    would take two values.) Upstream calls are counted over the window only, and divided by the
 *    poll intervals it holds; RSS is read at its end.
 * 3. Drain: two intervals and a second more, for the last changes' events; then every stream is
 *    closed and `../scenarios/live-delivery.ts` judges what each subscriber received against
 *    what was asked.
 *
 * The site-detail calls by site show that each watched site is read once per interval however
 * many subscribe to it, and that no other site is read at all.
 */
import { loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { LIVE_CHANGES_PER_SECOND, LIVE_POLL_S, LIVE_SECONDS, LIVE_SITES, LIVE_SUBSCRIBERS_PER_SITE } from '../config.js';
import { memoryMb, withProcess } from '../processes/child.js';
import { startGateway } from '../processes/gateway.js';
import { clock } from '../processes/machine.js';
import { apiCalls, type BenchMock, type Span } from '../processes/mock.js';
import { judgeDelivery, type AskedChange, type DeliveryResult } from '../scenarios/live-delivery.js';
import { openSubscribers } from '../scenarios/live-subscribers.js';

/** Everything the live scenario measured. */
export interface LiveResult {
  sites: number;
  subscribers: number;
  pollS: number;
  seconds: number;
  changesPerSecond: number;
  /** Opening every stream until each had its first event (or ended). */
  subscribe: { ms: number; withFirstEvent: number; upstreamCallsByPath: Record<string, number> };
  /** Over the window of changes. */
  upstream: {
    windowMs: number;
    intervals: number;
    calls: number;
    callsByPath: Record<string, number>;
    callsPerInterval: number;
    /** Site-detail calls of the busiest watched site, per interval. */
    busiestSitePerInterval: number;
    /** Site-detail calls for sites nobody watched. */
    unwatchedSiteCalls: number;
    /** Bursts of calls (gaps over half an interval apart): the poll rounds seen from the mock. */
    rounds: { count: number; minCalls: number; maxCalls: number };
  };
  changes: number;
  delivery: DeliveryResult;
  events: { received: number; errors: number; errorExamples: string[]; endedEarly: number; endedEarlyExamples: string[] };
  /** The gateway's resident memory: started, all subscribed, at the end of the window (and its peak). */
  rssMb: { idle: number; subscribed: number; atEnd: number; peak: number };
  /** This process's CPU over the window, % of one core: the subscribers' client and the change ticker. */
  clientCpuPercent: number;
  /** The gateway's `gateway_live_*` metrics after the drain. */
  gatewayMetrics: string[];
  loadAverage: { atStart: number; atEnd: number };
}

/** Run the live scenario against a fresh gateway. */
export async function measureLive(mock: BenchMock): Promise<LiveResult> {
  const atStart = loadAverage();
  const siteCodes = watchedSites(mock.siteCodes, LIVE_SITES);
  const total = siteCodes.length * LIVE_SUBSCRIBERS_PER_SITE;
  const env = { LIVE_POLL_S: String(LIVE_POLL_S), LIVE_MAX_SUBSCRIPTIONS_PER_CLIENT: String(total) };
  return withProcess(startGateway(mock, env), async (gw) => {
    const idle = memoryMb(gw.pid).rss;
    await mock.reset();
    step(`${total} SSE subscribers over ${siteCodes.length} sites: subscribing`);
    const fleet = openSubscribers(gw.url, siteCodes, LIVE_SUBSCRIBERS_PER_SITE);
    try {
      const first = await fleet.untilAllFirst(60_000);
      const subscribe = { ms: first.ms, withFirstEvent: first.withFirst, upstreamCallsByPath: await mock.calls() };
      const subscribed = memoryMb(gw.pid).rss;
      step(`${first.withFirst} of ${total} subscribed in ${first.ms} ms; ${LIVE_CHANGES_PER_SECOND} lane changes a second for ${LIVE_SECONDS} s, polls every ${LIVE_POLL_S} s`);
      await mock.reset();
      const cpuBefore = process.cpuUsage();
      const { changes, windowMs } = await changeStock(mock, siteCodes);
      const cpu = process.cpuUsage(cpuBefore);
      const upstream = await windowCalls(mock, siteCodes, windowMs);
      const atEnd = memoryMb(gw.pid);
      step('drain: the last changes\' events');
      await sleep(2 * LIVE_POLL_S * 1000 + 1000);
      const gatewayMetrics = await liveMetrics(gw.url);
      const { count: errors, examples: errorExamples } = fleet.errors();
      const early = fleet.endedEarly();
      await fleet.close();
      return {
        sites: siteCodes.length, subscribers: total, pollS: LIVE_POLL_S, seconds: LIVE_SECONDS, changesPerSecond: LIVE_CHANGES_PER_SECOND,
        subscribe, upstream, changes: changes.length,
        delivery: judgeDelivery(changes, fleet.logs, LIVE_POLL_S * 1000),
        events: {
          received: fleet.logs.reduce((sum, log) => sum + log.events.length, 0), errors, errorExamples,
          endedEarly: early.length, endedEarlyExamples: [...new Set(early.map((end) => `${end.reason}${end.detail ? `: ${end.detail}` : ''}`))].slice(0, 5),
        },
        rssMb: { idle, subscribed, atEnd: atEnd.rss, peak: atEnd.peak },
        clientCpuPercent: Math.round(((cpu.user + cpu.system) / 1000 / windowMs) * 1000) / 10,
        gatewayMetrics,
        loadAverage: { atStart, atEnd: loadAverage() },
      };
    } finally {
      await fleet.close();
    }
  });
}

/** `count` site codes spread evenly over the catalog (every 40th of 2,000), not one list page's worth. */
export function watchedSites(siteCodes: readonly string[], count: number): string[] {
  const step = Math.max(1, Math.floor(siteCodes.length / count));
  return siteCodes.filter((_, i) => i % step === 0).slice(0, count);
}

// Private: a tick a second, at a random moment of it, each asking the mock for changes and noting
// when it asked; the window's length.
async function changeStock(mock: BenchMock, siteCodes: readonly string[]): Promise<{ changes: AskedChange[]; windowMs: number }> {
  const started = performance.now();
  const changes: AskedChange[] = [];
  for (let tick = 0; tick < LIVE_SECONDS; tick += 1) {
    await sleep(Math.max(0, started + (tick + Math.random()) * 1000 - performance.now()));
    const askedAt = performance.now();
    const made = await mock.mutateStock({ lanes: LIVE_CHANGES_PER_SECOND, siteCodes: [...siteCodes] });
    changes.push(...made.map(({ siteCode, pointCode, laneIndex, to }) => ({ siteCode, pointCode, laneIndex, to, askedAt })));
  }
  await sleep(Math.max(0, started + LIVE_SECONDS * 1000 - performance.now()));
  return { changes, windowMs: performance.now() - started };
}

// Private: the window's upstream calls, per interval, by path and by site.
async function windowCalls(mock: BenchMock, siteCodes: readonly string[], windowMs: number): Promise<LiveResult['upstream']> {
  const callsByPath = Object.fromEntries(Object.entries(await mock.calls()).filter(([path]) => path !== '/oauth/token'));
  const bySite = await mock.detailCallsBySite();
  const { spans } = await mock.log();
  const intervals = windowMs / (LIVE_POLL_S * 1000);
  const watched = new Set(siteCodes);
  const calls = apiCalls(callsByPath);
  return {
    windowMs: Math.round(windowMs),
    intervals: Math.round(intervals * 10) / 10,
    calls,
    callsByPath,
    callsPerInterval: Math.round((calls / intervals) * 10) / 10,
    busiestSitePerInterval: Math.round((Math.max(0, ...siteCodes.map((code) => bySite[code] ?? 0)) / intervals) * 100) / 100,
    unwatchedSiteCalls: Object.entries(bySite).filter(([code]) => !watched.has(code)).reduce((sum, [, n]) => sum + n, 0),
    rounds: roundsOf(spans.filter((span) => span.path !== '/oauth/token'), (LIVE_POLL_S * 1000) / 2),
  };
}

// Private: calls grouped into bursts, a new one after a gap longer than `gapMs`.
function roundsOf(spans: readonly Span[], gapMs: number): LiveResult['upstream']['rounds'] {
  const starts = spans.map((span) => span.start).sort((a, b) => a - b);
  const sizes: number[] = [];
  starts.forEach((start, i) => {
    if (i === 0 || start - starts[i - 1]! > gapMs) sizes.push(0);
    sizes[sizes.length - 1]! += 1;
  });
  return { count: sizes.length, minCalls: sizes.length === 0 ? 0 : Math.min(...sizes), maxCalls: sizes.length === 0 ? 0 : Math.max(...sizes) };
}

// Private: the gateway's `gateway_live_*` samples, as scraped (none if /metrics does not answer).
async function liveMetrics(baseUrl: string): Promise<string[]> {
  try {
    const response = await fetch(`${baseUrl}/metrics`);
    const text = await response.text();
    return text.split('\n').filter((line) => line.startsWith('gateway_live_'));
  } catch {
    return [];
  }
}

function loadAverage(): number {
  return Math.round(loadavg()[0]! * 100) / 100;
}

// Private: progress on stderr, as all.ts does.
function step(what: string): void {
  console.error(`bench: ${clock()} live, ${what}`);
}
