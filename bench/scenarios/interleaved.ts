/**
 * A gateway and the bare server loaded in turn, in short slices, for the serving targets' ratios
 * to the bare server. This machine's speed moves by a third within seconds: the same bare
 * server, at 100 % of its core in every run, served 11.9k to 21.6k req/s in eight runs of 4 s
 * back to back (46 to 84 µs of CPU a request), and in one bench run its one-product runs a few
 * minutes apart gave 10.7k and 15.8k req/s. So each pair is two slices seconds apart, the order
 * alternates (gateway first, then bare first) so that a steady drift favours neither, and the
 * ratio judged is the median of the pairs', with their range beside it. Both servers' answers are
 * read by the generator here, so it does the same work for both, unless the caller's answers are
 * too large for the generator to read at the servers' rate (`Reads`).
 */
import { BARE_WARMUP_SECONDS, INTERLEAVED_ROUNDS, INTERLEAVED_SLICE_SECONDS } from '../config.js';
import { round, type LoadResult } from '../load/load.js';
import type { ServingRun } from './serving.js';
import { runBodiesLoad } from '../load/wrk.js';
import { setTimeout as delay } from 'node:timers/promises';
import { apiCalls, type BenchMock } from '../processes/mock.js';

/** One slice of each server, seconds apart. */
export interface InterleavedPair {
  gateway: LoadResult;
  bare: LoadResult;
}

/** What the interleaved slices measured: each pair, and the median and range of their ratios. */
export interface InterleavedResult {
  sliceSeconds: number;
  /** Whose answers the generator read for `errors` (absent in results from before: both). */
  reads?: Reads;
  pairs: InterleavedPair[];
  /** API calls the gateway made during its slices: none, when every answer came from warm data. */
  upstreamCalls: number;
  /** Gateway req/s ÷ bare req/s. */
  throughput: Spread;
  /** Gateway p99 ÷ bare p99. */
  p99: Spread;
}

export interface Spread {
  median: number;
  min: number;
  max: number;
}

/**
 * Whose answers the slices read for GraphQL `errors`: `both`; `gateway` (the bare server's are
 * known bytes, and reading them bounded the generator first: the ratio is then the stricter);
 * `neither` (one key, whose answer the fill checked just before, and no upstream call in the
 * gateway's slices: every answer is that checked one again; statuses are counted either way).
 */
export type Reads = 'both' | 'gateway' | 'neither';

/** How the gateway's caches are filled before the slices. */
export interface Fill {
  /** `performance.now()` when every answer it holds is stale (its check's end, plus the data's TTL); 0: nothing expires. */
  staleAt: number;
  /** Asks the gateway every key once (its checked warm-up again). */
  askEveryKey(): Promise<unknown>;
}

/**
 * A scenario on the gateway at `gatewayUrl` (warm: its measured run just ended) and on the bare
 * server at `bareUrl` (fresh: warmed up here first), in INTERLEAVED_ROUNDS pairs of slices, the
 * same `bodies` for both (one drawn at random each request), the answers `reads` says read for `errors`.
 */
export async function interleavedRuns(gatewayUrl: string, bareUrl: string, bodies: readonly string[], mock: BenchMock, fill: Fill,
  reads: Reads = 'both'): Promise<InterleavedResult> {
  const read = { gateway: reads !== 'neither', bare: reads === 'both' };
  const slice = (url: string) => runBodiesLoad({ url, seconds: INTERLEAVED_SLICE_SECONDS, bodies, order: 'random', checkBodies: url === gatewayUrl ? read.gateway : read.bare });
  await runBodiesLoad({ url: bareUrl, seconds: BARE_WARMUP_SECONDS, bodies, order: 'random' });
  // What the gateway holds since its check expires (sites: 30 s) before every key is asked again:
  // all of it fresh, for longer than the slices take.
  await delay(Math.max(0, fill.staleAt - performance.now()));
  await fill.askEveryKey();
  await mock.untilQuiet();
  // One slice unmeasured: after asking every key again (2,000 sites executed), the first slice of
  // a site's hits ran at a seventh of the next ones' rate.
  await slice(gatewayUrl);
  await mock.reset();
  const pairs: InterleavedPair[] = [];
  for (let round = 0; round < INTERLEAVED_ROUNDS; round += 1) {
    if (round % 2 === 0) {
      const gateway = await slice(gatewayUrl);
      pairs.push({ gateway, bare: await slice(bareUrl) });
    } else {
      const bare = await slice(bareUrl);
      pairs.push({ gateway: await slice(gatewayUrl), bare });
    }
  }
  const upstreamCalls = apiCalls(await mock.calls());
  return {
    sliceSeconds: INTERLEAVED_SLICE_SECONDS,
    reads,
    pairs,
    upstreamCalls,
    throughput: spread(pairs.map((p) => p.gateway.requestsPerSecond / p.bare.requestsPerSecond)),
    p99: spread(pairs.map((p) => p.gateway.latencyP99Ms / p.bare.latencyP99Ms)),
  };
}

// Private: the median (of an even count, the mean of the middle two) and the range, to 3 places.
function spread(values: number[]): Spread {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length / 2;
  const median = sorted.length % 2 === 1 ? sorted[Math.floor(mid)]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { median: round(median, 3), min: round(sorted[0]!, 3), max: round(sorted.at(-1)!, 3) };
}

/**
 * The bare server's slices as one run, for the tables and the p99 targets: its rate over all of
 * them, the medians of their latencies (a bare server has no pauses for a longer run to catch),
 * and the most its generator spent.
 */
export function bareRunOf(result: InterleavedResult): ServingRun {
  const slices = result.pairs.map((pair) => pair.bare);
  const sum = (of: (slice: LoadResult) => number): number => slices.reduce((total, slice) => total + of(slice), 0);
  const median = (of: (slice: LoadResult) => number): number => spread(slices.map(of)).median;
  return {
    requestsPerSecond: round(sum((s) => s.requests) / sum((s) => s.seconds), 1),
    latencyP50Ms: median((s) => s.latencyP50Ms),
    latencyP99Ms: median((s) => s.latencyP99Ms),
    latencyMeanMs: median((s) => s.latencyMeanMs),
    requests: sum((s) => s.requests),
    requestsSent: sum((s) => s.requestsSent),
    clientErrors: sum((s) => s.clientErrors),
    non2xx: sum((s) => s.non2xx),
    graphqlErrors: sum((s) => s.graphqlErrors),
    bytesPerResponse: slices[0]!.bytesPerResponse,
    seconds: sum((s) => s.seconds),
    loadGeneratorCpuPercent: Math.max(...slices.map((s) => s.loadGeneratorCpuPercent)),
    generator: slices[0]!.generator,
    check: null,
    upstreamCalls: null,
  };
}
