/** Latency samples summarised, for the scenarios that time requests one by one. */

/** Percentiles and extremes of a set of samples, in the samples' unit. */
export interface LatencySummary {
  samples: number;
  p50: number;
  p99: number;
  mean: number;
  max: number;
}

/**
 * `samples` summarised, rounded to `digits` decimals. Percentiles are nearest-rank: p99 of 1,500
 * samples is the 1,485th smallest, a value that was measured. Empty: every figure is NaN.
 */
export function summariseLatency(samples: readonly number[], digits = 2): LatencySummary {
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = (q: number): number => sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)] ?? NaN;
  const mean = sorted.length === 0 ? NaN : sorted.reduce((sum, x) => sum + x, 0) / sorted.length;
  const round = (x: number): number => Math.round(x * 10 ** digits) / 10 ** digits;
  return { samples: sorted.length, p50: round(rank(0.5)), p99: round(rank(0.99)), mean: round(mean), max: round(sorted.at(-1) ?? NaN) };
}
