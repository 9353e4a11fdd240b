/**
 * RESULTS.md's scale-out section (replicas sharing one Redis) and how it is measured.
 */
import type { ReplicaHealth, ScaleOutResult } from '../scenarios/scale-out.js';
import type { Results } from './results.js';

/** The section: what ran, then one row per replica count. */
export function scaleOutSection(r: Results): string {
  // A latest.json from before the scenario existed has none: re-rendering it must still work.
  const runs: ScaleOutResult[] = r.raw.scaleOut ?? [];
  if (runs.length === 0) return '## Scale-out\n\nNot measured in this run.';
  const s = r.settings.scaleOut;
  const byPath = (calls: Record<string, number>): string => Object.entries(calls).sort().map(([path, n]) => `${path} ${n}`).join(', ');
  return ['## Scale-out: replicas sharing one Redis', '',
    `${runs.map((x) => x.replicas).join(', ')} replicas, all on the server core, with one redis-server; the ${r.settings.connections} connections split evenly over them.`
      + ` Shared cache: fresh replicas and a flushed Redis, a sites TTL of ${s.sitesTtlS ?? 30} s, ${s.warmupRequests} warm-up then ${s.requests} measured requests of the mixed workload;`
      + ` upstream calls from the cold start, warm-up included, per 1,000 requests sent (spread max ÷ min: ${r.ratios.scaleOutCallsSpread ?? 'n/a'}). req/s and latencies are the measured part's.`
      + ` Token expiry: fresh replicas and a flushed Redis again, ${r.settings.expiryCacheTtlS} s TTLs, \`expireAllTokens()\` ${s.expirySeconds / 2} s into ${s.expirySeconds} s of load.`
      + ' Redis errors: `gateway_redis_errors_total` over the replicas and both runs; each is an operation that fell back to the replica alone (its own fetch, or its own token).',
    '', '| Replicas | req/s | p50 ms | p99 ms | upstream calls per 1,000 requests | upstream calls by path | token requests at expiry | calls after the expiry (refused) | client errors | Redis errors | load generator CPU |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...runs.map(row(byPath)),
  ].join('\n');
}

// Private: one replica count's row.
function row(byPath: (calls: Record<string, number>) => string): (x: ScaleOutResult) => string {
  return ({ replicas, sharedCache: c, expiry: e }) =>
    `| ${replicas} | ${c.requestsPerSecond} | ${c.latencyP50Ms} | ${c.latencyP99Ms} | ${c.upstreamCallsPer1000Requests} (${c.upstreamCalls} / ${c.warmupRequestsSent + c.requestsSent}) | ${byPath(c.upstreamCallsByPath)} `
    + `| ${e.tokenRequestsAfterExpiry} | ${e.upstreamCallsAfterExpiry} (${e.tokenTimeoutAnswers}) | ${clientErrors(c, e)} | ${redisErrors(c, e)} | ${c.loadGeneratorCpuPercent} % |`;
}

// Private: the client errors of both runs, with what each failed request was (older results have no breakdown).
function clientErrors(...runs: Array<{ clientErrors: number; failures?: Record<string, number> }>): string {
  const total = runs.reduce((sum, run) => sum + run.clientErrors, 0);
  const failures: Record<string, number> = {};
  for (const run of runs) for (const [what, n] of Object.entries(run.failures ?? {})) failures[what] = (failures[what] ?? 0) + n;
  const parts = Object.entries(failures).sort().map(([what, n]) => `${what} ${n}`);
  return parts.length === 0 ? String(total) : `${total} (${parts.join(', ')})`;
}

// Private: the Redis errors of both runs, with the operations that failed (older results have no breakdown).
function redisErrors(...runs: Partial<ReplicaHealth>[]): string {
  const total = runs.reduce((sum, run) => sum + (run.redisErrors ?? 0), 0);
  const byOperation: Record<string, number> = {};
  for (const run of runs) {
    for (const [operation, n] of Object.entries(run.redisErrorsByOperation ?? {})) byOperation[operation] = (byOperation[operation] ?? 0) + n;
  }
  const parts = Object.entries(byOperation).sort().map(([operation, n]) => `${operation} ${n}`);
  return parts.length === 0 ? String(total) : `${total} (${parts.join(', ')})`;
}

/** The "How it is measured" bullet. */
export function scaleOutAssumption(r: Results): string {
  const s = r.settings.scaleOut;
  if (s === undefined) return '- **Scale-out**: not measured in this run.'; // an older latest.json
  return `- **Scale-out**: the gateway as deployed with \`REDIS_URL\` set, its other settings default; replicas and Redis (\`--save '' --appendonly no\`, a free port) pinned to the server core, so more replicas bring no more CPU: the figures show what sharing costs and saves, not more hardware.`
    + ' autocannon spreads one run over the replicas, connection i to replica i mod N, so each gets the same number of connections and one histogram gives the latencies.'
    + ` The shared-cache run sends a fixed number of requests (${s.warmupRequests} + ${s.requests}, each part stopped after ${s.maxSeconds} s at most), not a fixed time: on one core, more replicas serve fewer requests per second, and the same catalog fetched once would then look dearer per 1,000 requests for that reason alone.`
    + ` With a sites TTL of ${s.sitesTtlS ?? 30} s (products and cities keep their longer defaults) nothing expires within the run, however slowly eight replicas on one core serve it, so every call is a first fetch of something, and sharing should keep their number that of one replica.`
    + ` The token-expiry run uses ${r.settings.expiryCacheTtlS} s TTLs, as for the single gateway, so that calls keep meeting the dead token; a count with no call after the expiry is not judged.`;
}
