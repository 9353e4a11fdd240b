/**
 * The fast first start: seconds from `npm start` to the first answer, in demo mode, on a
 * copy of the project with no dist/ (the first start after `npm ci`: it builds everything), then
 * again (the second start: nothing to build). The copy shares node_modules, so the figure is
 * the build and the start, not an install; the run's own dist/ is never touched.
 */
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../config.js';
import { freePort, stopProcess, waitUntilOk } from '../processes/child.js';

/** Seconds from `npm start` to its first GraphQL answer. */
export interface StartResult {
  firstS: number;
  secondS: number;
}

const COPIED = ['src', 'scripts', 'examples/web', 'package.json', 'tsconfig.json', 'tsconfig.build.json', 'schema.graphql'];
const PROBE: RequestInit = { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"{ cities { total } }"}' };

export async function measureStart(): Promise<StartResult> {
  const copy = mkdtempSync(join(tmpdir(), 'vending-graph-start-'));
  try {
    for (const path of COPIED) cpSync(join(ROOT, path), join(copy, path), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'));
    return { firstS: await timeStart(copy), secondS: await timeStart(copy) };
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}

// Private: one `npm start` (demo mode: no upstream in its environment) until it answers, then stopped.
async function timeStart(directory: string): Promise<number> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), LOG_LEVEL: 'warn' };
  delete env.UPSTREAM_BASE_URL;
  const started = performance.now();
  const child = spawn('npm', ['start'], { cwd: directory, env, stdio: 'ignore', detached: true });
  try {
    await waitUntilOk(`http://127.0.0.1:${port}/graphql`, PROBE, child, 120_000);
    return Math.round((performance.now() - started) / 100) / 10;
  } finally {
    process.kill(-child.pid!, 'SIGTERM'); // npm and the gateway it started: the whole group
    await stopProcess(child);
  }
}

