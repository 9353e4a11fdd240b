/**
 * Profile one serving scenario (a profile leads every optimisation): the built
 * gateway under `node --cpu-prof`, pinned as in the bench, one checked serving run on it, then
 * its CPU per request (from /proc), the hottest functions and packages of the profile, and what
 * the garbage collector did (load/gc-trace.ts).
 *
 *   npm run profile -- small [off|on|bare]
 *
 * `off` (the default) sets `RESPONSE_CACHE_MAX_BYTES=0`: every answer is executed. `bare`
 * profiles the bare server (peers/bare-server.ts) under the same load instead, replaying a
 * gateway's answer as the bench does: the yardstick's own costs, beside a hit's.
 * `PROFILE_HEAP=survivors` also samples what outlives a young-generation collection
 * (load/heap-survivors.ts), by function, per request.
 * `PROFILE_NODE_ARGS` adds node options (e.g. `--max-semi-space-size=64`) to try against the
 * same run. The profile stays in `.prof/<scenario>-<cache>/` for Chrome DevTools or speedscope.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { GC_TRACE_ARGS, gcSummary } from './load/gc-trace.js';
import { survivorSampling, survivorSummary } from './load/heap-survivors.js';
import { join } from 'node:path';
import { INDEX_REFRESH_S, ROOT, SITES_NEAR_CHECKS } from './config.js';
import { stopProcess, withProcess } from './processes/child.js';
import { representativeAnswer } from './measure/serving.js';
import { startBare } from './peers/bare.js';
import { startGateway } from './processes/gateway.js';
import { startMock } from './processes/mock.js';
import { gatewayPeer, servingRun, isRun } from './scenarios/serving.js';
import { wrongAnswers } from './workloads/check.js';
import { everyKey, gatewayRequest, type ServingScenario } from './workloads/serving.js';

const scenario = (process.argv[2] ?? 'small') as ServingScenario;
const cache = process.argv[3] === 'on' || process.argv[3] === 'bare' ? process.argv[3] : 'off';
const dir = join(ROOT, '.prof', `${scenario}-${cache}`);
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });

const mock = await startMock();
try {
  if (cache === 'bare') await profileBare();
  else await profileGateway();
} finally {
  await mock.close();
}

// Private: the bare server, pinned as in the bench, under the same serving run (unchecked).
async function profileBare(): Promise<void> {
  const answer = await withProcess(startGateway(mock, { INDEX_REFRESH_S: String(INDEX_REFRESH_S) }), (gw) => representativeAnswer(`${gw.url}/graphql`, scenario, mock));
  const bare = await startBare({ [scenario]: { answer, keys: everyKey(scenario, mock, SITES_NEAR_CHECKS) } }, ['--cpu-prof', `--cpu-prof-dir=${dir}`]);
  const cpuBefore = cpuMicros(bare.pid);
  const outcome = await servingRun({ url: `${bare.url}/${scenario}`, request: gatewayRequest, checked: false }, scenario, mock, (s, keys) => mock.expected(s, keys));
  const cpu = cpuMicros(bare.pid) - cpuBefore;
  await stopProcess(bare.child, 30_000);
  if (isRun(outcome)) {
    say(`${scenario}, bare server: ${outcome.requestsPerSecond} req/s, p50 ${outcome.latencyP50Ms} / p99 ${outcome.latencyP99Ms} ms, ` +
      `client errors ${outcome.clientErrors}; its CPU ≈ ${Math.round(cpu / outcome.requests)} µs per request (warm-up included)`);
  }
  summarise(join(dir, readdirSync(dir).find((name) => name.endsWith('.cpuprofile'))!));
}

// Private: the gateway, with its collector's trace and, asked for, what outlives a scavenge.
async function profileGateway(): Promise<void> {
  const env: Record<string, string> = { INDEX_REFRESH_S: String(INDEX_REFRESH_S), ...(cache === 'off' ? { RESPONSE_CACHE_MAX_BYTES: '0' } : {}) };
  // Its stdout (log lines and the collector's trace) goes to a file, read for the GC summary.
  const logFile = join(dir, 'stdout.txt');
  const survivors = process.env.PROFILE_HEAP === 'survivors' ? survivorSampling(join(dir, 'survivors.heapprofile')) : undefined;
  const nodeArgs = [...(process.env.PROFILE_NODE_ARGS?.split(' ').filter(Boolean) ?? []), ...(survivors?.nodeArgs ?? []), ...GC_TRACE_ARGS, '--cpu-prof', `--cpu-prof-dir=${dir}`];
  const gw = await startGateway(mock, { ...env, ...survivors?.env }, { nodeArgs, logFile });
  const cpuBefore = cpuMicros(gw.pid);
  const outcome = await servingRun(gatewayPeer(`${gw.url}/graphql`), scenario, mock, (s, keys) => mock.expected(s, keys));
  const cpu = cpuMicros(gw.pid) - cpuBefore;
  const requests = isRun(outcome) ? outcome.requests + (outcome.check?.checked ?? 0) : 1;
  const survived = survivors === undefined ? [] : await survivorSummary(gw.child, join(dir, 'survivors.heapprofile'), requests);
  await stopProcess(gw.child, 30_000);
  if (isRun(outcome)) {
    say(`${scenario}, response cache ${cache}: ${outcome.requestsPerSecond} req/s, p50 ${outcome.latencyP50Ms} / p99 ${outcome.latencyP99Ms} ms, ` +
      `client errors ${outcome.clientErrors}, wrong answers ${outcome.check ? wrongAnswers(outcome.check) : "-"}; ` +
      `gateway CPU ≈ ${Math.round(cpu / requests)} µs per request (warm-up and load run included)`);
  }
  summarise(join(dir, readdirSync(dir).find((name) => name.endsWith('.cpuprofile'))!));
  const gc = await gcSummary(logFile);
  if (gc !== undefined) {
    say(`\ngarbage collection (whole run): ${gc.scavenges} scavenges, pause mean ${gc.scavengeMeanMs.toFixed(2)} / max ${gc.scavengeMaxMs.toFixed(1)} ms, ` +
      `${(gc.survivedMeanBytes / 1e6).toFixed(2)} MB surviving each; ${gc.markCompacts} mark-compacts, max ${gc.markCompactMaxMs.toFixed(1)} ms`);
  }
  survived.forEach(say);
  rmSync(logFile, { force: true });
}

interface ProfileNode { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }

// Private: self time by function and by package, hottest first.
function summarise(file: string): void {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] };
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const total = [...selfUs.values()].reduce((a, b) => a + b, 0);
  const busy = total - [...selfUs].filter(([id]) => byId.get(id)!.callFrame.functionName === '(idle)').reduce((a, [, us]) => a + us, 0);
  const byFunction = new Map<string, number>();
  const byPackage = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    if (functionName === '(idle)') continue;
    const where = url.replace(/^file:\/\//, '').replace(ROOT, '');
    add(byFunction, `${functionName || '(anonymous)'} ${where}:${lineNumber + 1}`, us);
    add(byPackage, packageOf(where), us);
  }
  say(`\nbusy ${(busy / 1e6).toFixed(2)} s of ${(total / 1e6).toFixed(2)} s profiled (${file})`);
  print('packages', byPackage, busy, 20);
  print('functions (self time)', byFunction, busy, 45);
}

function packageOf(where: string): string {
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(where);
  if (match) return match[1]!;
  if (where.startsWith('dist/')) return where.split('/').slice(0, 2).join('/');
  return where === '' ? '(native, gc, program)' : where.startsWith('node:') ? 'node core' : where;
}

function add(map: Map<string, number>, key: string, us: number): void {
  map.set(key, (map.get(key) ?? 0) + us);
}

function print(title: string, map: Map<string, number>, busy: number, rows: number): void {
  say(`\n${title}:`);
  for (const [name, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, rows)) say(`${((us / busy) * 100).toFixed(1).padStart(5)} %  ${name}`);
}

// Private: user + system CPU of a process so far, in µs (/proc/<pid>/stat, clock ticks of 10 ms).
function cpuMicros(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

// Private: the report goes to stdout (progress, as elsewhere in the bench, to stderr).
function say(line: string): void {
  process.stdout.write(`${line}\n`);
}
