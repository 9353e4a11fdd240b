/**
 * What OpenTelemetry tracing costs (`BENCH_ONLY=tracing`): the warm path (the repeated deep
 * query answered from the response cache) and the executed path (the same query with the
 * response cache off, so it runs every time over a warm data cache), each with tracing off (no
 * endpoint: no tracer at all) and on at a 10 % sample (`parentbased_traceidratio`, 0.1),
 * exporting to a local OTLP/HTTP receiver that reads and discards what it gets.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WARM_SITES } from '../config.js';
import type { LoadResult } from '../load/load.js';
import { stopProcess } from '../processes/child.js';
import { clock } from '../processes/machine.js';
import { startGateway } from '../processes/gateway.js';
import type { BenchMock } from '../processes/mock.js';
import { warmLoad } from '../scenarios/warm.js';
import { deepQuery } from '../workloads/queries.js';

export interface TracingRun {
  path: 'warm' | 'executed';
  tracing: 'off' | 'on (10 % sampled)';
  load: LoadResult;
  /** Export requests the receiver got during the run (0 with tracing off). */
  exports: number;
}

const SAMPLED = { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1', OTEL_SERVICE_NAME: 'vending-graph-bench' };

/** The four runs, each on a fresh gateway: warm off, warm on, executed off, executed on. */
export async function measureTracing(mock: BenchMock): Promise<TracingRun[]> {
  const receiver = await startReceiver();
  const runs: TracingRun[] = [];
  try {
    for (const path of ['warm', 'executed'] as const) {
      for (const tracing of ['off', 'on (10 % sampled)'] as const) {
        console.error(`bench: ${clock()} tracing: ${path} path, tracing ${tracing}`);
        const env: Record<string, string> = {
          ...(path === 'executed' ? { RESPONSE_CACHE_MAX_BYTES: '0' } : {}),
          ...(tracing === 'off' ? {} : { ...SAMPLED, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url }),
        };
        const gateway = await startGateway(mock, env);
        try {
          const before = receiver.exports();
          const load = await warmLoad(`${gateway.url}/graphql`, deepQuery('gateway', WARM_SITES), mock, `tracing ${path} ${tracing}`);
          runs.push({ path, tracing, load, exports: receiver.exports() - before });
        } finally {
          await stopProcess(gateway.child);
        }
      }
    }
  } finally {
    await receiver.close();
  }
  return runs;
}

/** One row per run for the console. */
export function tracingRow(run: TracingRun): Record<string, string | number> {
  const { load } = run;
  return {
    path: run.path, tracing: run.tracing, rps: Math.round(load.requestsPerSecond),
    p50Ms: load.latencyP50Ms, p99Ms: load.latencyP99Ms, errors: load.clientErrors, exports: run.exports,
  };
}

// Private: an OTLP/HTTP receiver that only counts: the bench measures the gateway, not a collector.
async function startReceiver(): Promise<{ url: string; exports(): number; close(): Promise<void> }> {
  let exports = 0;
  const server: Server = createServer((req, res) => {
    req.resume().on('end', () => {
      exports += 1;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    exports: () => exports,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
