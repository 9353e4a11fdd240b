/**
 * What outlives a young-generation collection (`PROFILE_HEAP=survivors npm run profile -- …`):
 * an object that survives a scavenge is promoted to the old generation, and only a major
 * collection frees it, with a pause that a CPU profile shows as one line. The gateway runs with
 * V8's sampling heap profiler preloaded (heap-survivors-preload.ts), told to keep only such objects;
 * the summary gives the bytes of them each function allocated, per request.
 */
import { existsSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ChildProcess } from 'node:child_process';
import { ROOT } from '../config.js';

/** The gateway's node options and environment for the sampling, writing to `file`. */
export function survivorSampling(file: string): { nodeArgs: string[]; env: Record<string, string> } {
  return { nodeArgs: ['--import', pathToFileURL(join(ROOT, 'bench/load/heap-survivors-preload.ts')).href], env: { HEAP_SURVIVORS_FILE: file } };
}

interface HeapNode { callFrame: { functionName: string; url: string; lineNumber: number }; selfSize: number; children: HeapNode[] }

/** Stops the sampling in `child` and summarises `file`: bytes per request, and by function. */
export async function survivorSummary(child: ChildProcess, file: string, requests: number): Promise<string[]> {
  child.kill('SIGUSR2');
  for (let waited = 0; !existsSync(file) && waited < 10_000; waited += 100) await sleep(100);
  if (!existsSync(file)) return ['no heap profile was written'];
  const byFunction = new Map<string, number>();
  let total = 0;
  const walk = (node: HeapNode): void => {
    const { functionName, url, lineNumber } = node.callFrame;
    const where = `${functionName || '(anonymous)'} ${url.replace(/^file:\/\//, '').replace(ROOT, '')}:${lineNumber + 1}`;
    byFunction.set(where, (byFunction.get(where) ?? 0) + node.selfSize);
    total += node.selfSize;
    node.children.forEach(walk);
  };
  walk((JSON.parse(readFileSync(file, 'utf8')) as { head: HeapNode }).head);
  const perRequest = (bytes: number) => (bytes / requests).toFixed(0).padStart(5);
  return [
    `\nobjects that outlived a scavenge (start-up included): ${perRequest(total).trim()} bytes per request`,
    ...[...byFunction].sort((a, b) => b[1] - a[1]).slice(0, 15).map(([where, bytes]) => `${perRequest(bytes)} B  ${where}`),
  ];
}
