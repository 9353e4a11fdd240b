/**
 * The live scenario in RESULTS.md: its section and its "How it is measured" bullet.
 * Apart from its targets (`live.ts`): these read the whole results file, which gathers those
 * targets, so one file would both import `results.ts` and be imported by it.
 */
import type { LiveResult } from '../measure/live.js';
import { ms, n } from './live.js';
import type { Results } from './results.js';

/** RESULTS.md's "Live stock" section. */
export function liveSection(r: Results): string {
  const x: LiveResult | undefined = r.raw.live; // absent: the full run leaves it to `BENCH_ONLY=live`
  if (x === undefined) return '## Live stock\n\nNot measured in this run: it runs alone, `BENCH_ONLY=live npm run bench` (figures on stdout, no report written), so that the full run stays under 15 minutes.';
  const u = x.upstream;
  const d = x.delivery;
  const rows: Array<[string, string]> = [
    ['Subscribing', `${n(x.subscribe.withFirstEvent)} of ${n(x.subscribers)} had their first event ${ms(x.subscribe.ms)} after the first stream opened; upstream calls meanwhile: ${calls(x.subscribe.upstreamCallsByPath)}`],
    ['Window', `${ms(u.windowMs)}, ${u.intervals} poll intervals; ${n(x.changes)} changes asked for (${x.changesPerSecond} lanes a second)`],
    ['Upstream calls', `${n(u.calls)}: ${calls(u.callsByPath)}; **${u.callsPerInterval} per interval**; busiest watched site ${u.busiestSitePerInterval} site-detail calls per interval; unwatched sites read ${u.unwatchedSiteCalls} times`],
    ['Poll rounds seen at the mock', `${u.rounds.count} bursts of ${u.rounds.minCalls}–${u.rounds.maxCalls} calls`],
    ['Delivery latency', `p50 ${ms(d.latencyMs.p50)}, p99 ${ms(d.latencyMs.p99)}, mean ${ms(d.latencyMs.mean)}, max ${ms(d.latencyMs.max)}`],
    ['Deliveries', `${n(d.expected)} owed: ${n(d.delivered)} delivered (${d.deliveredSuperseded} by a later value of the same lane), ${d.undoneUnseen} undone unseen, **${d.lost} lost**; ${d.staleAtEnd} lanes stale at the end`],
    ['Events', `${n(x.events.received)} received, ${d.eventsWithoutChange} without a change, ${x.events.errors} with errors${examples(x.events.errorExamples)}; ${x.events.endedEarly} streams ended early${examples(x.events.endedEarlyExamples)}`],
    ['Gateway RSS', `${x.rssMb.idle} MB started, ${x.rssMb.subscribed} MB all subscribed, ${x.rssMb.atEnd} MB at the end of the changes (peak ${x.rssMb.peak} MB)`],
    ['Client CPU', `${x.clientCpuPercent} % of a core (the subscribers and the change ticker, beside the mock on the load core); load average ${x.loadAverage.atStart} → ${x.loadAverage.atEnd}`],
    ['Gateway metrics after the drain', x.gatewayMetrics.length === 0 ? 'none scraped' : x.gatewayMetrics.map((line) => `\`${line}\``).join(', ')],
  ];
  return ['## Live stock', '',
    `${n(x.subscribers)} SSE subscribers (\`siteStock\`, graphql-sse distinct connections, one connection each) over ${x.sites} sites, ${x.subscribers / x.sites} per site,`
      + ` on a fresh gateway with \`LIVE_POLL_S=${x.pollS}\` (the default is 10 s; ${x.pollS} s puts ${Math.round(x.seconds / x.pollS)} intervals in the ${x.seconds} s of changes),`
      + ` while the mock changed ${x.changesPerSecond} random lanes of those sites every second, at a random moment of it (\`mutateStock\`).`,
    '', '| | |', '| --- | --- |', ...rows.map(([name, value]) => `| ${name} | ${value} |`),
  ].join('\n');
}

/** The "How it is measured" bullet. */
export function liveAssumption(r: Results): string {
  const x: LiveResult | undefined = r.raw.live;
  if (x === undefined) return '- **Live stock**: not measured in this run (`BENCH_ONLY=live npm run bench` runs it alone).';
  return `- **Live stock**: the gateway as deployed but for \`LIVE_POLL_S=${x.pollS}\` and \`LIVE_MAX_SUBSCRIPTIONS_PER_CLIENT=${x.subscribers}\` (every subscriber comes from one address).`
    + ` The ${x.sites} sites are every ${Math.floor(r.settings.catalog.sites / x.sites)}th of the catalog, spread over its list pages. Each subscriber sends \`siteStock(code)\` selecting every lane's stock, and parses the \`event: next\` messages itself over undici, stamping each on arrival.`
    + ' Upstream calls are counted over the window of changes only (not the subscribing), and divided by the poll intervals it holds.'
    + ' **Latency** runs from the moment the bench asked the mock for a change (over IPC) to the arrival of the event that delivered it; a change waits for the next poll, so it spreads over one interval.'
    + ' **Delivered**: for each subscriber of its site, a change of lane L to v, asked at t, is delivered by the first event arriving after t that shows L at v, or at the value of a later change of L asked before that event arrived (a change superseded before the next poll is delivered when the later value arrives; its latency still runs from its own t).'
    + ' A change undone within one interval, back to the value the subscriber last saw before it, owes no event (the site is as it was) and is counted apart as *undone unseen*.'
    + ` Every other change with no delivering event by the end (two intervals and a second after the last change) is **lost**. *Stale at the end*: lanes whose last event shows another value than their last change set. An event without a change shows the same stock as the subscriber's event before it.`;
}

// Private: calls by path, or "none".
function calls(byPath: Record<string, number>): string {
  const parts = Object.entries(byPath).filter(([path]) => path !== '/oauth/token').sort().map(([path, n]) => `${path} ${n}`);
  return parts.length === 0 ? 'none' : parts.join(', ');
}

// Private: examples in brackets, if any.
function examples(list: readonly string[]): string {
  return list.length === 0 ? '' : ` (${list.map((e) => `"${e.replace(/\|/g, '\\|')}"`).join('; ')})`;
}
