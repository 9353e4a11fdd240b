/**
 * `npm run bench`: builds the gateway (the npm script), then this: the mock upstream at
 * benchmark scale, the gateway, a bare `node:http` server and GraphQL Mesh, each measured in
 * turn (`measure/all.ts`); results to `bench/results/latest.json`, `bench/results/chart.svg` and
 * `bench/RESULTS.md`. Not part of `npm test`.
 *
 *   npm run bench                      # full run: 15 s per load run, about 14 minutes (build included);
 *                                      # the live scenario and tracing run only alone (below)
 *   BENCH_SECONDS=3 npx tsx bench/run.ts   # quick check of the harness (dist/ must be built)
 *   BENCH_ONLY=scale-out BENCH_SECONDS=3 npx tsx bench/run.ts   # one scenario; figures on stdout,
 *                                      # no report written (the reports need every scenario)
 *   BENCH_ONLY=index npm run bench     # the catalog index alone, the same way
 *   BENCH_ONLY=tracing npm run bench   # tracing off and on (10 % sampled), warm and executed paths
 *   BENCH_ONLY=serving BENCH_SECONDS=3 npx tsx bench/run.ts   # distinct keys, deep page off, mix, ratios to the bare server
 *   BENCH_ONLY=warm BENCH_SECONDS=3 npx tsx bench/run.ts      # the warm deep and small queries, each in turn with the bare server
 *   BENCH_ONLY=start npm run bench     # npm start to the first answer, first and second
 *   BENCH_ONLY=compression npm run bench   # the deep page per coding, its hits in br and identity (about 30 s)
 *   BENCH_ONLY=live npm run bench      # live stock: 1,000 SSE subscribers, 50 sites, 60 s of changes
 *                                      # (BENCH_SECONDS=3 makes it 12 s)
 *
 * The driver re-executes itself under `taskset -c 1`: autocannon runs here (wrk, for the warm and
 * serving scenarios when it is installed, is pinned there too), and the load generator must not
 * share a core with the server it measures (core 0).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { LOAD_CORE, ONLY, ROOT } from './config.js';
import { measureAll } from './measure/all.js';
import { measureCatalogIndex } from './measure/catalog-index.js';
import { measureCompression } from './measure/compression.js';
import { measureLive } from './measure/live.js';
import { measureScaleOut } from './measure/scale-out.js';
import { measureServing } from './measure/serving.js';
import { measureStart } from './measure/start.js';
import { measureWarm } from './measure/warm.js';
import { measureTracing, tracingRow } from './measure/tracing.js';
import { composeMesh, ensureMeshInstalled } from './peers/mesh.js';
import { CAN_PIN, withProcess } from './processes/child.js';
import { startGateway } from './processes/gateway.js';
import { describeMachine } from './processes/machine.js';
import { startMock } from './processes/mock.js';
import { writeReports } from './report.js';
import { liveRow, liveTargets } from './report/live.js';
import { compressionRows, compressionTargets } from './report/compression.js';
import { buildResults, catalogIndexHeadline, catalogIndexTargets, scaleOutRow } from './report/results.js';
import { servingRows, servingTargets } from './report/serving.js';
import { startTargets } from './report/start.js';
import type { Target } from './report/target.js';
import { inTurnVerdict } from './report/in-turn.js';

if (CAN_PIN && process.env.BENCH_PINNED !== '1') {
  const child = spawn('taskset', ['-c', String(LOAD_CORE), process.execPath, ...process.execArgv, ...process.argv.slice(1)], {
    stdio: 'inherit',
    env: { ...process.env, BENCH_PINNED: '1' },
  });
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
} else {
  const only = { 'scale-out': scaleOutOnly, index: indexOnly, tracing: tracingOnly, serving: servingOnly, live: liveOnly, start: startOnly, compression: compressionOnly, warm: warmOnly } as const;
  const run = ONLY === undefined ? main : only[ONLY];
  run().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}

async function main(): Promise<void> {
  const started = Date.now();
  const machine = describeMachine();
  if (!existsSync(join(ROOT, 'dist/main.js'))) throw new Error('dist/main.js is missing: run `npm run bench` (it builds first)');
  // Installing and composing Mesh happen before anything is measured, so they skew nothing.
  ensureMeshInstalled();
  composeMesh();
  const mock = await startMock();
  try {
    const measurements = await measureAll(mock);
    const durationSeconds = Math.round((Date.now() - started) / 1000);
    const results = buildResults(measurements, machine, { date: new Date(started).toISOString(), durationSeconds });
    writeReports(results);
    printTargets(results.targets);
    console.error(`bench: done in ${durationSeconds} s; ratios ${JSON.stringify(results.ratios)}`);
    console.error('bench: wrote bench/results/latest.json, bench/results/chart.svg, bench/RESULTS.md');
  } finally {
    await mock.close();
  }
}

// Private: `BENCH_ONLY=scale-out`: that scenario alone, its figures as JSON on stdout. Nothing is
// written, so that latest.json and RESULTS.md always come from one complete run.
async function scaleOutOnly(): Promise<void> {
  if (!existsSync(join(ROOT, 'dist/main.js'))) throw new Error('dist/main.js is missing: run `npm run build` first');
  const started = Date.now();
  const mock = await startMock();
  try {
    const runs = await measureScaleOut(mock);
    process.stdout.write(JSON.stringify(runs, null, 2) + '\n');
    for (const run of runs) console.error(`bench: ${JSON.stringify(scaleOutRow(run))}`);
    console.error(`bench: scale-out only, done in ${Math.round((Date.now() - started) / 1000)} s; nothing written`);
  } finally {
    await mock.close();
  }
}

// Private: `BENCH_ONLY=index`: the catalog index alone, its figures as JSON on stdout, its
// targets judged on stderr. Nothing is written, as for scale-out.
async function indexOnly(): Promise<void> {
  if (!existsSync(join(ROOT, 'dist/main.js'))) throw new Error('dist/main.js is missing: run `npm run build` first');
  const started = Date.now();
  const mock = await startMock();
  try {
    const index = await measureCatalogIndex(mock);
    process.stdout.write(JSON.stringify(index, null, 2) + '\n');
    console.error(`bench: ${JSON.stringify(catalogIndexHeadline(index))}`);
    printTargets(catalogIndexTargets(index));
    console.error(`bench: catalog index only, done in ${Math.round((Date.now() - started) / 1000)} s; nothing written`);
  } finally {
    await mock.close();
  }
}

// Private: `BENCH_ONLY=tracing`: tracing's overhead alone, its figures as JSON on stdout and one
// row per run on stderr. Nothing is written, as for scale-out.
async function tracingOnly(): Promise<void> {
  if (!existsSync(join(ROOT, 'dist/main.js'))) throw new Error('dist/main.js is missing: run `npm run build` first');
  const started = Date.now();
  const mock = await startMock();
  try {
    const runs = await measureTracing(mock);
    process.stdout.write(JSON.stringify(runs, null, 2) + '\n');
    for (const run of runs) console.error(`bench: tracing ${JSON.stringify(tracingRow(run))}`);
    console.error(`bench: tracing only, done in ${Math.round((Date.now() - started) / 1000)} s; nothing written`);
  } finally {
    await mock.close();
  }
}

// Private: `BENCH_ONLY=serving`: the serving scenarios alone (distinct keys, deep page with the
// response cache off, the mix), their figures as JSON on stdout, one row per run and the
// targets on stderr. Nothing is written, as for scale-out.
async function servingOnly(): Promise<void> {
  if (!existsSync(join(ROOT, 'dist/main.js'))) throw new Error('dist/main.js is missing: run `npm run build` first');
  const started = Date.now();
  const mock = await startMock();
  try {
    const serving = await measureServing(mock);
    process.stdout.write(JSON.stringify(serving, null, 2) + '\n');
    for (const row of servingRows(serving)) console.error(`bench: serving ${JSON.stringify(row)}`);
    printTargets(servingTargets(serving));
    console.error(`bench: serving only, done in ${Math.round((Date.now() - started) / 1000)} s; nothing written`);
  } finally {
    await mock.close();
  }
}

// Private: `BENCH_ONLY=compression`: compressed answers alone (the deep page per coding, its hits
// in br and identity), their figures as JSON on stdout, rows and the target on stderr. Nothing is
// written, as for scale-out.
async function compressionOnly(): Promise<void> {
  if (!existsSync(join(ROOT, 'dist/main.js'))) throw new Error('dist/main.js is missing: run `npm run build` first');
  const started = Date.now();
  const mock = await startMock();
  try {
    const compression = await measureCompression(mock);
    process.stdout.write(JSON.stringify(compression, null, 2) + '\n');
    for (const row of compressionRows(compression)) console.error(`bench: compression ${JSON.stringify(row)}`);
    printTargets(compressionTargets(compression));
    console.error(`bench: compression only, done in ${Math.round((Date.now() - started) / 1000)} s; nothing written`);
  } finally {
    await mock.close();
  }
}

// Private: `BENCH_ONLY=live`: the live scenario alone, its figures as JSON on stdout, its row and
// targets on stderr. Nothing is written, as for scale-out.
async function liveOnly(): Promise<void> {
  if (!existsSync(join(ROOT, 'dist/main.js'))) throw new Error('dist/main.js is missing: run `npm run build` first');
  const started = Date.now();
  const mock = await startMock();
  try {
    const live = await measureLive(mock);
    process.stdout.write(JSON.stringify(live, null, 2) + '\n');
    console.error(`bench: live ${JSON.stringify(liveRow(live))}`);
    printTargets(liveTargets(live));
    console.error(`bench: live only, done in ${Math.round((Date.now() - started) / 1000)} s; nothing written`);
  } finally {
    await mock.close();
  }
}

// Private: `BENCH_ONLY=warm`: the warm deep and small queries on a fresh gateway, each beside a bare
// server in turn, their figures as JSON on stdout, the ratios on stderr. Nothing is written, as for scale-out.
async function warmOnly(): Promise<void> {
  if (!existsSync(join(ROOT, 'dist/main.js'))) throw new Error('dist/main.js is missing: run `npm run build` first');
  const started = Date.now();
  const mock = await startMock();
  try {
    const warm = await withProcess(startGateway(mock), (gw) => measureWarm(`${gw.url}/graphql`, mock));
    process.stdout.write(JSON.stringify({ ...warm, warmDeep: { ...warm.warmDeep, body: undefined }, warmSmall: { ...warm.warmSmall, body: undefined } }, null, 2) + '\n');
    for (const [name, x] of Object.entries(warm.inTurn)) console.error(`bench: warm ${name} ÷ bare: ${inTurnVerdict(x, 'throughput', () => true, '').actual}`);
    console.error(`bench: warm only, done in ${Math.round((Date.now() - started) / 1000)} s; nothing written`);
  } finally {
    await mock.close();
  }
}

// Private: `BENCH_ONLY=start`: `npm start` to the first answer, first and second start; nothing written.
async function startOnly(): Promise<void> {
  const start = await measureStart();
  process.stdout.write(JSON.stringify(start, null, 2) + '\n');
  printTargets(startTargets(start));
}

// Private: each target on stderr, PASS or FAIL (REPORT where the issue sets no threshold, NOT MEASURED where the run cannot judge it).
function printTargets(targets: readonly Target[]): void {
  const verdict = (met: Target['met']): string => (met === null ? 'REPORT' : met === 'unmeasured' ? 'NOT MEASURED' : met ? 'PASS' : 'FAIL');
  for (const t of targets) console.error(`bench: ${verdict(t.met)} ${t.what}: ${t.actual} (target ${t.target})`);
}
