/**
 * Child processes of the bench, whatever they run: pinning to a core with `taskset`, waiting
 * for a server, resident memory, a forced GC, and a clean stop. Each server has its own file
 * beside this one (`gateway.ts`, `mock.ts`, `redis.ts`; the peers in `../peers/`).
 */
import { spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/** Whether `taskset` works here (Linux with util-linux); without it nothing is pinned. */
export const CAN_PIN = spawnSync('taskset', ['-c', '0', 'true']).status === 0;

/** `command args` run on `core` only, when taskset is available. taskset execs, so the pid is the command's. */
export function pinned(core: number, command: string, args: string[]): [string, string[]] {
  return CAN_PIN ? ['taskset', ['-c', String(core), command, ...args]] : [command, args];
}

/** A server the bench started. */
export interface RunningProcess {
  /** Its base address, e.g. `http://127.0.0.1:4321`. */
  url: string;
  pid: number;
  child: ChildProcess;
}

/**
 * Node options that let the bench force a full garbage collection in a process that never asks
 * for one itself: `--expose-gc`, and a preloaded handler that runs `gc()` on SIGUSR2 (see
 * `forceGc`). Nothing else in the process changes; the gateway does not use SIGUSR2.
 */
export const GC_ON_SIGNAL = ['--expose-gc', '--import', 'data:text/javascript,process.on("SIGUSR2",()=>globalThis.gc())'];

/** A full GC in process `pid` (started with `GC_ON_SIGNAL`), then `settleMs` for it to run. */
export async function forceGc(pid: number, settleMs = 500): Promise<void> {
  process.kill(pid, 'SIGUSR2');
  await sleep(settleMs);
}

/** Poll `url` until it answers 2xx (at most `timeoutMs`); fail at once if `child` exits meanwhile. */
export async function waitUntilOk(url: string, init: RequestInit, child: ChildProcess, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${url}: the server exited (${child.exitCode ?? child.signalCode})`);
    try {
      const response = await fetch(url, init);
      await response.arrayBuffer();
      if (response.ok) return;
      last = `HTTP ${response.status}`;
    } catch (error) {
      last = String(error);
    }
    await sleep(100);
  }
  throw new Error(`${url} did not answer 2xx within ${timeoutMs} ms (last: ${last})`);
}

/** SIGTERM, then SIGKILL if it has not exited within `graceMs`. */
export async function stopProcess(child: ChildProcess, graceMs = 5000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/** Resident and peak resident memory of a process, in MB (from /proc/<pid>/status). */
export function memoryMb(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string): number => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN);
  return { rss: Math.round(kb('VmRSS') / 1024), peak: Math.round(kb('VmHWM') / 1024) };
}

/** A TCP port free right now on 127.0.0.1, for servers that cannot be told port 0. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Start a server, use it, always stop it. */
export async function withProcess<T>(starting: Promise<RunningProcess>, use: (server: RunningProcess) => Promise<T>): Promise<T> {
  const server = await starting;
  try {
    return await use(server);
  } finally {
    await stopProcess(server.child);
  }
}

/** A GraphQL peer `child` listening on `port`, once it answers `{ __typename }` (killed if it never does). */
export async function graphqlPeerAt(child: ChildProcess, port: number, timeoutMs = 60_000): Promise<RunningProcess> {
  const url = `http://127.0.0.1:${port}`;
  const probe = { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"{ __typename }"}' };
  try {
    await waitUntilOk(`${url}/graphql`, probe, child, timeoutMs);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  return { url, pid: child.pid!, child };
}
