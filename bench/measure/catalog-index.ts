/**
 * The catalog-index measurements: one freshly started gateway (`../scenarios/catalog-index.ts`),
 * then the in-process probe (`catalog-index-probe.ts`) once that gateway has stopped, both on
 * the system-under-test core.
 *
 * The gateway runs with its defaults but for three things, all for measuring: `INDEX_REFRESH_S`
 * long enough that no rebuild runs during the warm runs; its log (level info, one line per
 * request) in a temporary file rather than /dev/null, for its own timing of each request; and
 * `GC_ON_SIGNAL`, so that memory can be read after a full GC.
 */
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { INDEX_REFRESH_S, INDEX_SEQUENTIAL_REQUESTS, ROOT, SUT_CORE } from '../config.js';
import { GC_ON_SIGNAL, pinned, stopProcess } from '../processes/child.js';
import { startGateway } from '../processes/gateway.js';
import { clock } from '../processes/machine.js';
import type { BenchMock } from '../processes/mock.js';
import { indexOnGateway, type IndexGatewayResult } from '../scenarios/catalog-index.js';
import { tokenFor } from '../scenarios/rest-client.js';
import type { ProbeResult } from './catalog-index-probe.js';

/** Everything measured of the index. */
export interface CatalogIndexResult extends IndexGatewayResult {
  probe: ProbeResult;
  /** One-minute load average when the scenario started and ended: other work on the machine skews p99s most. */
  loadAverage: { atStart: number; atEnd: number };
}

/** Measure the index on a fresh gateway, then in-process. */
export async function measureCatalogIndex(mock: BenchMock): Promise<CatalogIndexResult> {
  const logFile = join(tmpdir(), `vending-graph-bench-index-${process.pid}.log`);
  const atStart = loadAverage();
  try {
    step('gateway: first index query, memory, warm sitesNear and availability');
    const gw = await startGateway(mock, { INDEX_REFRESH_S: String(INDEX_REFRESH_S), LOG_LEVEL: 'info' }, { nodeArgs: GC_ON_SIGNAL, logFile });
    let gateway: IndexGatewayResult;
    try {
      gateway = await indexOnGateway(gw, mock, { sequentialRequests: INDEX_SEQUENTIAL_REQUESTS, logFile });
    } finally {
      await stopProcess(gw.child);
    }
    step('in-process: build time, heap and query time of the index structures');
    const probe = await runProbe(mock);
    return { ...gateway, probe, loadAverage: { atStart, atEnd: loadAverage() } };
  } finally {
    rmSync(logFile, { force: true });
  }
}

// Private: the probe as a child process; its one JSON line.
async function runProbe(mock: BenchMock): Promise<ProbeResult> {
  const token = await tokenFor(mock);
  const [command, args] = pinned(SUT_CORE, process.execPath, ['--expose-gc', '--import', 'tsx', 'bench/measure/catalog-index-probe.ts']);
  const child = spawn(command, args, {
    cwd: ROOT,
    env: { ...process.env, PROBE_UPSTREAM_URL: mock.url, PROBE_TOKEN: token },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => { out += chunk; });
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (exitCode) => resolve(exitCode));
  });
  if (code !== 0) throw new Error(`catalog-index-probe exited with ${code}`);
  return JSON.parse(out.trim().split('\n').at(-1) ?? '') as ProbeResult;
}

function loadAverage(): number {
  return Math.round(loadavg()[0]! * 100) / 100;
}

// Private: progress on stderr, as all.ts does.
function step(what: string): void {
  console.error(`bench: ${clock()} catalog index, ${what}`);
}
