/**
 * Starting the bare server (`bare-server.ts`) on the system-under-test core, on this process's
 * Node (`process.execPath`, as the gateway is started), with the answer and keys of each path.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, SUT_CORE } from '../config.js';
import { pinned, type RunningProcess } from '../processes/child.js';
import type { BareRoute } from './bare-server.js';

/** One path of the bare server: the answer it replays and the keys (request variables) it maps to it. */
export interface BareAnswer {
  answer: Buffer;
  /** Every key of the scenario, as the variables a request carries; all must name the same variables. */
  keys: readonly object[];
}

/**
 * Start the bare server answering `/<name>` from `routes[name]`, with `nodeArgs` (e.g. `--cpu-prof`);
 * throws if it runs on another Node than this one.
 */
export async function startBare(routes: Record<string, BareAnswer>, nodeArgs: readonly string[] = []): Promise<RunningProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-bare-'));
  const file: Record<string, BareRoute> = {};
  for (const [name, route] of Object.entries(routes)) {
    const answer = join(dir, `${name}.json`);
    writeFileSync(answer, route.answer);
    file[name] = { answer, keys: route.keys as Array<Record<string, unknown>> };
  }
  writeFileSync(join(dir, 'routes.json'), JSON.stringify(file));
  const [command, commandArgs] = pinned(SUT_CORE, process.execPath, [...nodeArgs, '--import', 'tsx', 'bench/peers/bare-server.ts', join(dir, 'routes.json')]);
  const child = spawn(command, commandArgs, { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  const started = await new Promise<{ url: string; node: string }>((resolve, reject) => {
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += String(chunk);
      const match = /bare server at (http:\/\/\S+) on node (\S+?),/.exec(output);
      if (match) resolve({ url: match[1]!, node: match[2]! });
    });
    child.once('exit', (code) => reject(new Error(`bare server exited (${code}): ${output}`)));
  }).finally(() => rmSync(dir, { recursive: true, force: true })); // read once, at its start
  if (started.node !== process.version) {
    child.kill('SIGKILL');
    throw new Error(`the bare server must run on the gateway's Node (${process.version}), but got: ${started.node}`);
  }
  return { url: started.url, pid: child.pid!, child };
}
