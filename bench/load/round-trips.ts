/**
 * Sequential upstream round trips, from the upstream's side: each call is given a "wave", one
 * more than the deepest wave among calls that had finished before it arrived (or 1 when none
 * had). The deepest wave is the number of round trips a client waited through one after
 * another. Calls queued behind a concurrency limit start after earlier ones finish, so they count
 * as further waves, which is what they cost in latency.
 *
 * Arrival and finish come from the mock process's diagnostics-channel spans (finish = the
 * answer's last byte handed to the socket); a call that never finished never ends a wave.
 * The same spans give call durations and the most calls in flight at once.
 */
import type { Span } from '../processes/mock.js';

/** Waves of `spans`, optionally only of calls on `paths`. */
export function roundTrips(spans: readonly Span[], include: (path: string) => boolean = () => true): number {
  const calls = spans.filter((span) => include(span.path));
  const byStart = [...calls].sort((a, b) => a.start - b.start);
  const byFinish = [...calls].sort((a, b) => finishOf(a) - finishOf(b));
  const wave = new Map<Span, number>();
  let finishedIndex = 0;
  let deepestFinished = 0;
  let deepest = 0;
  for (const call of byStart) {
    // Every call finished before this one arrived also started before it, so has its wave.
    while (finishedIndex < byFinish.length && finishOf(byFinish[finishedIndex]!) <= call.start) {
      deepestFinished = Math.max(deepestFinished, wave.get(byFinish[finishedIndex]!) ?? 0);
      finishedIndex += 1;
    }
    wave.set(call, deepestFinished + 1);
    deepest = Math.max(deepest, deepestFinished + 1);
  }
  return deepest;
}

/** Calls per path in a call log. */
export function countByPath(log: ReadonlyArray<{ path: string }>): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const { path } of log) counts[path] = (counts[path] ?? 0) + 1;
  return counts;
}

// Private: an unfinished call (aborted, or hung) finishes never.
function finishOf(span: Span): number {
  return Number.isFinite(span.finish) ? span.finish : Infinity;
}

/** How long upstream calls took (arrival to last byte), and how many were in flight at most. */
export interface CallTimings {
  meanMs: number;
  p99Ms: number;
  maxInFlight: number;
}

/**
 * Timings of the finished calls among `spans`. A mean well above the mock's latency means the
 * mock (or its core) was the bottleneck; `maxInFlight` shows a client's concurrency cap at work.
 */
export function callTimings(spans: readonly Span[]): CallTimings {
  const finished = spans.filter((span) => Number.isFinite(span.finish));
  const durations = finished.map((span) => span.finish - span.start).sort((a, b) => a - b);
  const mean = durations.reduce((sum, ms) => sum + ms, 0) / Math.max(1, durations.length);
  const p99 = durations[Math.min(durations.length - 1, Math.floor(durations.length * 0.99))] ?? 0;
  const edges = finished.flatMap((span) => [[span.start, 1], [span.finish, -1]] as const)
    .sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let inFlight = 0;
  let maxInFlight = 0;
  for (const [, change] of edges) {
    inFlight += change;
    maxInFlight = Math.max(maxInFlight, inFlight);
  }
  return { meanMs: Math.round(mean * 10) / 10, p99Ms: Math.round(p99 * 10) / 10, maxInFlight };
}
