/** Starting the bare server (`bare-server.ts`) on the system-under-test core with the bytes to replay. */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, SUT_CORE } from '../config.js';
import { pinned, type RunningProcess } from '../processes/child.js';

/** Start the bare server answering `/<name>` with `bodies[name]`. */
export async function startBare(bodies: Record<string, Buffer>): Promise<RunningProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-bare-'));
  const args = Object.entries(bodies).map(([name, bytes]) => {
    const file = join(dir, `${name}.json`);
    writeFileSync(file, bytes);
    return `${name}=${file}`;
  });
  const [command, commandArgs] = pinned(SUT_CORE, process.execPath, ['--import', 'tsx', 'bench/peers/bare-server.ts', ...args]);
  const child = spawn(command, commandArgs, { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += String(chunk);
      const match = /bare server at (http:\/\/\S+)/.exec(output);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`bare server exited (${code}): ${output}`)));
  });
  return { url, pid: child.pid!, child };
}
