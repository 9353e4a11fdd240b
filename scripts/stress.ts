/**
 * `npm run test:stress`: the whole vitest suite, several times in a row, while two busy loops
 * keep both cores of a small machine occupied. A test that races the clock fails here long
 * before it fails in CI on a busy day.
 *
 * - `STRESS_RUNS`: how many runs (default 5); `STRESS_LOOPS`: how many busy loops (default 2).
 * - Arguments go to `vitest run` (e.g. `npm run test:stress -- test/upstream`).
 *
 * Prints each run's duration and outcome, and exits 1 if any run failed. The loops are stopped
 * whatever happens (a failure, an error, Ctrl-C), and each also ends itself once this script's
 * process is gone, so none outlives a `kill -9`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const VITEST = fileURLToPath(new URL('node_modules/vitest/vitest.mjs', new URL('../', import.meta.url)));

// A loop that spins one core, checking every few hundred ms whether its parent still exists.
const BUSY_LOOP = `const parent = Number(process.argv[1]); let i = 0;
for (;;) { if (++i === 5e7) { i = 0; if (process.ppid !== parent) process.exit(0); } }`;

interface Run {
  run: number;
  seconds: number;
  passed: boolean;
}

const runs = positiveInt('STRESS_RUNS', 5);
const loopCount = positiveInt('STRESS_LOOPS', 2);
const vitestArgs = process.argv.slice(2);
const loops: ChildProcess[] = [];
let current: ChildProcess | undefined;

process.on('exit', stopLoops);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    current?.kill(signal);
    stopLoops();
    process.exit(130);
  });
}

try {
  for (let i = 0; i < loopCount; i += 1) {
    loops.push(spawn(process.execPath, ['-e', BUSY_LOOP, String(process.pid)], { stdio: 'ignore' }));
  }
  say(`${loopCount} busy loops running (pids ${loops.map((loop) => loop.pid).join(', ')}); ${runs} runs of vitest run ${vitestArgs.join(' ')}`);
  const results: Run[] = [];
  for (let run = 1; run <= runs; run += 1) {
    say(`run ${run}/${runs} …`);
    const started = performance.now();
    const passed = await runVitest();
    results.push({ run, seconds: (performance.now() - started) / 1000, passed });
    say(`run ${run}/${runs}: ${passed ? 'PASS' : 'FAIL'} in ${(results.at(-1)!.seconds).toFixed(1)} s`);
  }
  stopLoops();
  say('summary:');
  for (const { run, seconds, passed } of results) say(`  run ${run}: ${passed ? 'PASS' : 'FAIL'}  ${seconds.toFixed(1)} s`);
  const failed = results.filter((result) => !result.passed).length;
  say(failed === 0 ? `all ${runs} runs passed` : `${failed} of ${runs} runs failed`);
  process.exitCode = failed === 0 ? 0 : 1;
} catch (error) {
  console.error(error);
  process.exitCode = 1;
} finally {
  stopLoops();
}

// Private: one `vitest run` with the terminal's output; resolves whether it passed.
async function runVitest(): Promise<boolean> {
  current = spawn(process.execPath, [VITEST, 'run', ...vitestArgs], { cwd: ROOT, stdio: 'inherit' });
  const [code] = (await once(current, 'exit')) as [number | null];
  current = undefined;
  return code === 0;
}

function stopLoops(): void {
  for (const loop of loops.splice(0)) loop.kill('SIGKILL');
}

function say(line: string): void {
  process.stdout.write(`[stress] ${line}\n`);
}

function positiveInt(name: string, fallback: number): number {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) {
    console.error(`${name} must be a whole number of at least 1, but got: ${JSON.stringify(text.slice(0, 20))}`);
    process.exit(2);
  }
  return value;
}
