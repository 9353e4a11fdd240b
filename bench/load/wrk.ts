/**
 * Load runs from a list of request bodies, by wrk when it is installed (Debian's `wrk` 4.1:
 * native, scripted in LuaJIT), else by autocannon (`runLoad`). autocannon runs in this process
 * and spends about 30 µs of its one core per small request: it saturates at 12–35k req/s
 * (busy or quiet machine), below what the bare server answers. wrk, one thread on the same core,
 * spends about 12 µs (most of it in the kernel's socket calls), so the fastest peers are
 * measured rather than the load generator. Either way: `CONNECTIONS` keep-alive connections,
 * POSTs of `content-type: application/json`, the same `LoadResult`, and `generator` says which
 * ran. wrk's latencies are µs, given in ms with two decimals (autocannon's are whole ms).
 *
 * wrk runs `wrk.lua` (it says what each argument does): the bodies are written to a
 * temporary file, one per line, formatted into requests once before the run, and each request
 * takes one of them. The script counts what wrk does not (requests sent, non-2xx answers,
 * answers with GraphQL `errors`, its own CPU time) and prints one JSON line, read here.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONNECTIONS, LOAD_CORE } from '../config.js';
import { pinned } from '../processes/child.js';
import { round, runLoad, type LoadResult } from './load.js';

/** wrk threads: one, like autocannon's one core (wrk's main thread only sleeps meanwhile). */
export const WRK_THREADS = 1;
/** A request unanswered this long counts as a timeout, in s (autocannon's `timeout` too). */
const TIMEOUT_SECONDS = 20;
const SCRIPT = fileURLToPath(new URL('./wrk.lua', import.meta.url));
const RESULT_PREFIX = 'WRK_RESULT ';

/** A load run on one server whose every request takes one body of a list. */
export interface BodiesLoadOptions {
  url: string;
  /** Length of the run in s; wrk takes whole seconds, so it is rounded (at least 1). */
  seconds: number;
  /** JSON request bodies, one line each (as `JSON.stringify` writes them). One body: always that one. */
  bodies: readonly string[];
  /**
   * `random`: a body drawn at random for each request (keys a client would repeat); `cycle`:
   * the bodies in turn, so that none repeats before the list runs out (give it enough of them).
   */
  order: 'random' | 'cycle';
  /** Read every answer and count those with GraphQL `errors` (costs the generator some CPU). */
  checkBodies?: boolean;
  /** An `Accept-Encoding` header sent with every request (wrk only). Default: none (identity). */
  acceptEncoding?: string;
}

let version: string | null | undefined;

/** wrk's version (`debian/4.1.0-3+b2`), or null when there is no `wrk` on PATH. Looked up once. */
export function wrkVersion(): string | null {
  if (version === undefined) {
    // `wrk --version` prints its usage after the version, and exits 1.
    const probe = spawnSync('wrk', ['--version'], { encoding: 'utf8' });
    version = probe.error ? null : (/^wrk (\S+)/.exec(probe.stdout)?.[1] ?? 'unknown version');
  }
  return version;
}

/** How the runs of `runBodiesLoad` are generated, in words, for the reports. */
export function loadGeneratorLabel(): string {
  const version = wrkVersion();
  return version === null
    ? `autocannon in the bench process (no \`wrk\` on PATH), ${CONNECTIONS} connections`
    : `wrk ${version}, ${WRK_THREADS} thread, ${CONNECTIONS} connections`;
}

/** Run `options` with wrk, or with autocannon when wrk is not installed. */
export async function runBodiesLoad(options: BodiesLoadOptions): Promise<LoadResult> {
  if (wrkVersion() !== null) return runWrk(options);
  if (options.acceptEncoding !== undefined) throw new Error('runBodiesLoad sends Accept-Encoding with wrk only; install wrk');
  const { url, seconds, bodies, order, checkBodies } = options;
  let turn = 0;
  const nextBody = order === 'cycle'
    ? () => bodies[turn++ % bodies.length]!
    : () => bodies[Math.floor(Math.random() * bodies.length)]!;
  return runLoad({ url, seconds, nextBody, checkBodies });
}

/** Run `options` with wrk, pinned to the load generator's core. Throws when wrk fails. */
export async function runWrk(options: BodiesLoadOptions): Promise<LoadResult> {
  const bad = options.bodies.findIndex((body) => body === '' || body.includes('\n'));
  if (options.bodies.length === 0 || bad >= 0) {
    throw new Error(`runWrk needs bodies of one non-empty line each, but got: ${options.bodies.length === 0 ? 'none' : JSON.stringify(options.bodies[bad])}`);
  }
  const dir = mkdtempSync(join(tmpdir(), 'bench-wrk-'));
  try {
    const file = join(dir, 'bodies.txt');
    writeFileSync(file, options.bodies.join('\n') + '\n');
    const args = [`-t${WRK_THREADS}`, `-c${CONNECTIONS}`, `-d${Math.max(1, Math.round(options.seconds))}s`, `--timeout`, `${TIMEOUT_SECONDS}s`,
      '-s', SCRIPT, options.url, '--', file, options.order, options.checkBodies ? 'check' : 'nocheck', options.acceptEncoding ?? ''];
    return summarise(parseResult(await run(...pinned(LOAD_CORE, 'wrk', args))));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What `wrk.lua`'s `done()` prints. Times in µs, CPU in s. */
interface WrkOutput {
  durationUs: number;
  requests: number;
  sent: number;
  bytes: number;
  connectErrors: number;
  readErrors: number;
  writeErrors: number;
  timeouts: number;
  /** wrk's own count: statuses above 399. */
  statusErrors: number;
  /** Whether the script read the answers (then `non2xx` and `graphqlErrors` are its counts). */
  checked: boolean;
  non2xx: number;
  graphqlErrors: number;
  latencyP50Us: number;
  latencyP99Us: number;
  latencyMeanUs: number;
  latencyMaxUs: number;
  /** wrk's process CPU time (every thread) from the start of the run to its end. */
  cpuSeconds: number;
}

// Private: run a command to its end, its stdout as the result; a failure throws with its output.
function run(command: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => { stdout += String(chunk); });
    child.stderr.on('data', (chunk) => { stderr += String(chunk); });
    child.once('error', reject);
    child.once('close', (code, signal) => {
      if (code === 0) resolve(stdout);
      else reject(new Error(`${command} ${args.join(' ')} failed (${signal ?? code}): ${(stderr + stdout).trim().slice(-2000)}`));
    });
  });
}

// Private: the script's JSON line out of wrk's output (its own summary comes first).
function parseResult(stdout: string): WrkOutput {
  const line = stdout.split('\n').find((l) => l.startsWith(RESULT_PREFIX));
  if (line === undefined) throw new Error(`wrk printed no ${RESULT_PREFIX.trim()} line, but: ${stdout.trim().slice(-2000)}`);
  return JSON.parse(line.slice(RESULT_PREFIX.length)) as WrkOutput;
}

// Private: wrk's figures in the bench's terms.
function summarise(out: WrkOutput): LoadResult {
  const seconds = out.durationUs / 1e6;
  // Unread answers: only wrk's count of 4xx and 5xx is known.
  const non2xx = out.checked ? out.non2xx : out.statusErrors;
  return {
    requestsPerSecond: round(out.requests / seconds, 1),
    latencyP50Ms: round(out.latencyP50Us / 1000, 2),
    latencyP99Ms: round(out.latencyP99Us / 1000, 2),
    latencyMeanMs: round(out.latencyMeanUs / 1000, 2),
    requests: out.requests,
    requestsSent: out.sent,
    clientErrors: out.connectErrors + out.readErrors + out.writeErrors + out.timeouts + non2xx + out.graphqlErrors,
    non2xx,
    graphqlErrors: out.graphqlErrors,
    bytesPerResponse: out.requests > 0 ? Math.round(out.bytes / out.requests) : 0,
    seconds: round(seconds, 2),
    loadGeneratorCpuPercent: round((out.cpuSeconds / seconds) * 100, 1),
    generator: 'wrk',
  };
}
