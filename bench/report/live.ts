/**
 * The live scenario's targets and its one-line summary for the console. Its
 * RESULTS.md section and "How it is measured" bullet are in `live-markdown.ts`.
 */
import { RSS_BUDGET_MB } from '../config.js';
import type { LiveResult } from '../measure/live.js';
import type { Target } from './target.js';

/** Calls per interval may exceed one per watched site by this much: a round at the window's edge. */
const CALLS_SLACK = 1.1;

/**
 * The figures for the live scenario: calls per interval and events lost judged, latency
 * and RSS reported; one row, not measured, when it did not run (the full run leaves it to `BENCH_ONLY=live`).
 */
export function liveTargets(x: LiveResult | undefined): Target[] {
  if (x === undefined) {
    return [{ what: 'Live stock: upstream calls per poll interval, delivery latency, RSS, events lost', target: 'see `BENCH_ONLY=live npm run bench`',
      actual: 'not run in the full bench: it runs alone', met: 'unmeasured' }];
  }
  const u = x.upstream;
  const d = x.delivery;
  const byPath = Object.entries(u.callsByPath).sort().map(([path, n]) => `${path} ${n}`).join(', ') || 'none';
  const who = `${n(x.subscribers)} SSE subscribers over ${x.sites} sites, \`LIVE_POLL_S=${x.pollS}\``;
  return [
    { what: `Live stock (${who}): upstream calls per poll interval`,
      target: `≤ ${x.sites} (one per watched site, or per list page; never one per subscriber: ${n(x.subscribers)})`,
      actual: `${u.callsPerInterval} (${n(u.calls)} in ${u.intervals} intervals: ${byPath}; busiest site ${u.busiestSitePerInterval} per interval; unwatched sites read ${u.unwatchedSiteCalls} times)`,
      met: u.callsPerInterval <= x.sites * CALLS_SLACK && u.unwatchedSiteCalls === 0 },
    { what: 'Live stock: delivery latency, from asking the mock for a change to the subscriber receiving it, p50 / p99',
      target: `report (a change waits for the next poll: up to ${x.pollS} s)`,
      actual: `${ms(d.latencyMs.p50)} / ${ms(d.latencyMs.p99)} (max ${ms(d.latencyMs.max)}, ${n(d.latencyMs.samples)} deliveries)`, met: null },
    { what: `Live stock: gateway RSS with ${n(x.subscribers)} subscribers`, target: `report (budget < ${RSS_BUDGET_MB} MB)`,
      actual: `${x.rssMb.atEnd} MB at the end of the changes (${x.rssMb.idle} MB started, ${x.rssMb.subscribed} MB all subscribed, peak ${x.rssMb.peak} MB)`, met: null },
    { what: 'Live stock: events lost (every change to every subscriber of its site)', target: '0',
      actual: `${d.lost} of ${n(d.expected)} deliveries owed (${d.deliveredSuperseded} by a later value of the lane, ${d.undoneUnseen} undone unseen; `
        + `${x.events.endedEarly} streams ended early, ${x.events.errors} error events, ${d.staleAtEnd} lanes stale at the end, ${d.eventsWithoutChange} events without a change)`,
      met: d.lost === 0 && d.staleAtEnd === 0 && x.events.endedEarly === 0 && x.subscribe.withFirstEvent === x.subscribers },
  ];
}

/** The live scenario in brief, for the console. */
export function liveRow(x: LiveResult): Record<string, string | number> {
  return {
    subscribers: x.subscribers, sites: x.sites, pollS: x.pollS, seconds: x.seconds, changes: x.changes,
    callsPerInterval: x.upstream.callsPerInterval, p50Ms: x.delivery.latencyMs.p50, p99Ms: x.delivery.latencyMs.p99,
    owed: x.delivery.expected, lost: x.delivery.lost, withoutChange: x.delivery.eventsWithoutChange, errors: x.events.errors,
    endedEarly: x.events.endedEarly, rssMb: x.rssMb.atEnd, clientCpu: x.clientCpuPercent,
  };
}

/** A count with thousands separators. */
export function n(value: number): string {
  return value.toLocaleString('en');
}

/** A duration in ms, whole. */
export function ms(value: number): string {
  return Number.isNaN(value) ? 'n/a' : `${Math.round(value).toLocaleString('en')} ms`;
}
