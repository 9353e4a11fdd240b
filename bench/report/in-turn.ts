/**
 * Ratios to the bare server from slices in turn (`../scenarios/interleaved.ts`), for every report
 * that gives one (the warm runs in `results.ts` and `markdown.ts`, the serving targets): the
 * median of the pairs with their range, judged only when the load generator kept ahead of both
 * servers, and one table of the pairs.
 */
import { round, type LoadResult } from '../load/load.js';
import type { Measurements } from '../measure/all.js';
import type { InterleavedResult, Reads } from '../scenarios/interleaved.js';
import type { Target } from './target.js';

/**
 * Load generator CPU (% of its core) from which a run counts as bounded by the generator: a
 * ratio over such a run would measure the generator, so none is given.
 */
export const SATURATED_CPU = 90;

/** Whether the load generator, not the server, may have bounded a run. */
export function generatorBound(run: Pick<LoadResult, 'loadGeneratorCpuPercent'>): boolean {
  return run.loadGeneratorCpuPercent >= SATURATED_CPU;
}

const READS_NOTE: Record<Reads, string> = { both: '', gateway: ' (the bare server\'s answers not read)', neither: ' (answers not read, one checked key)' };

/** Which figure of the pairs a ratio divides. */
export type InTurnFigure = 'throughput' | 'p99';

/**
 * A ratio of the pairs judged by `ok`: unmeasured when a slice of either server bounded its
 * generator; unmet when the gateway's slices had client errors or upstream calls (not all warm).
 * `beside` is said after it (e.g. the same ratio over the gateway's long run).
 */
export function inTurnVerdict(x: InterleavedResult, figure: InTurnFigure, ok: (value: number) => boolean, beside: string): Pick<Target, 'actual' | 'met'> {
  const bound = x.pairs.flatMap((p) => [['bare', p.bare], ['gateway', p.gateway]] as const).find(([, slice]) => generatorBound(slice));
  if (bound !== undefined) {
    return { actual: `no ratio: the load generator, not the server, was the bottleneck (a ${bound[0]} slice at ${bound[1].loadGeneratorCpuPercent} % CPU)`, met: 'unmeasured' };
  }
  const { median, min, max } = x[figure];
  const errors = x.pairs.reduce((sum, p) => sum + p.gateway.clientErrors, 0);
  const calls = x.upstreamCalls ?? 0;
  const actual = `${median}, the median of ${x.pairs.length} pairs of ${x.sliceSeconds} s slices in turn (${min} to ${max}; load generator at most ${mostCpu(x)})`
    + `${errors === 0 ? '' : `; ${errors} client errors in the gateway's slices`}${calls === 0 ? '' : `; ${calls} upstream calls during the gateway's slices (not all warm)`}`
    + (beside === '' ? '' : `; ${beside}`);
  return { actual, met: ok(median) && errors === 0 && calls === 0 };
}

/**
 * The warm deep page's req/s ÷ the bare server's (`value`, the headline ratio), judged on the slices in turn,
 * with the gateway's 15 s run ÷ the bare slices together beside it; on the 15 s runs alone in results from before the slices.
 */
export function warmVsBare(m: Measurements, value: number, bareBound: (x: { loadGeneratorCpuPercent: number }) => string): Target {
  const what = 'Warm 10-site deep req/s ÷ bare server';
  const ok = (v: number): boolean => v >= 0.7;
  if (m.warmInTurn === undefined) return { what, target: '≥ 0.7', actual: `${value}${bareBound(m.bare.deep)}`, met: ok(value) };
  const { requestsPerSecond: run, clientErrors, seconds } = m.gateway.warmDeep;
  const beside = `the gateway's ${Math.round(seconds)} s run ÷ the bare slices together: ${round(run / m.bare.deep.requestsPerSecond, 3)} (${run} ÷ ${m.bare.deep.requestsPerSecond} req/s)`
    + (clientErrors === 0 ? '' : `; ${clientErrors} client errors in the gateway's run`);
  const verdict = inTurnVerdict(m.warmInTurn.deep, 'throughput', ok, beside);
  return { what, target: '≥ 0.7', actual: verdict.actual, met: verdict.met === true ? clientErrors === 0 : verdict.met };
}

/**
 * The pairs of each comparison as one markdown table: req/s and p99 of each slice, the ratios'
 * medians and ranges, the generator's CPU, upstream calls.
 */
export function inTurnTable(rows: ReadonlyArray<readonly [string, InterleavedResult]>): string {
  const line = ([label, x]: readonly [string, InterleavedResult]): string => `| ${label}${READS_NOTE[x.reads ?? 'both']} | `
    + `${x.pairs.map((p) => Math.round(p.gateway.requestsPerSecond)).join(' · ')} | ${x.pairs.map((p) => Math.round(p.bare.requestsPerSecond)).join(' · ')} | `
    + `**${x.throughput.median}** (${x.throughput.min} to ${x.throughput.max}) | ${x.pairs.map((p) => `${p.gateway.latencyP99Ms}/${p.bare.latencyP99Ms}`).join(' · ')} | `
    + `${x.p99.median} (${x.p99.min} to ${x.p99.max}) | ${mostCpu(x)} | ${x.upstreamCalls ?? '—'} |`;
  return ['| Load | gateway req/s, by pair | bare req/s, by pair | req/s ratio: median (range) | p99 ms gateway/bare, by pair | p99 ratio: median (range) | '
    + 'load generator CPU, most of a slice | upstream calls (gateway\'s slices) |',
  '| --- | --- | --- | --- | --- | --- | --- | --- |', ...rows.map(line)].join('\n');
}

/** How the slices are taken, in a sentence or two, for the text above a table of them. */
export function inTurnHow(x: InterleavedResult): string {
  return `right after the gateway's run, the gateway and a bare server of the same scenario replaying the gateway's answer, loaded in turn in ${x.pairs.length} pairs of `
    + `${x.sliceSeconds} s slices, the gateway first in every other pair, the same bodies for both; each ratio is the median of the pairs', its range beside it`;
}

// Private: the most CPU the generator spent in a slice of each server, e.g. `41 % (gateway), 67 % (bare)`.
function mostCpu(x: InterleavedResult): string {
  const most = (side: 'gateway' | 'bare'): number => Math.max(...x.pairs.map((p) => p[side].loadGeneratorCpuPercent));
  return `${most('gateway')} % (gateway), ${most('bare')} % (bare)`;
}
