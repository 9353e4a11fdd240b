/**
 * `npm run soak -- bodies`: SOAK_BODIES_CONNECTIONS (default 2,000) connections each send a
 * chunked `Content-Encoding: br` POST of 14 bytes of brotli that decode to 1,040,000 bytes, and
 * never its last chunk, against the built gateway (dist/main.js, demo mode) in its own process,
 * while one client sends legitimate queries. Three rounds, each on a fresh gateway:
 *
 * - `keys`: GATEWAY_API_KEYS and RATE_LIMIT_PER_MINUTE=60, as the probe ran it; the bombs carry
 *   no key (the legitimate client does);
 * - `open`: no key needed: every bomb is admitted and decoded until its ratio refuses it;
 * - `stall`: no key needed, and bombs that decode to 60,000 bytes (under the ratio's 64 KiB) then
 *   stall: what they hold is bounded by MAX_DECODING_BYTES alone, until their 408.
 *
 * Prints each round's RSS at its start (after a full GC), its peak (sampled every 100 ms) and at
 * its end (every bomb answered and closed, 2 s later), and the answers by status. Passes when
 * every round's peak and end are within 100 MB of its start, every bomb got an answer and every
 * legitimate query a 200; exits 1 otherwise. Loopback only; each round is bounded in time.
 */
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { brotliCompressSync } from 'node:zlib';
import { forceGc, freePort, GC_ON_SIGNAL, memoryMb, stopProcess, waitUntilOk } from './processes/child.js';
import { ROOT } from './config.js';

const CONNECTIONS = Number(process.env.SOAK_BODIES_CONNECTIONS ?? 2000);
/** Connections opened at once, then the next batch: a client's own limit, not the gateway's. */
const BATCH = 100;
const KEY = 'soak-bodies-legitimate-key-0001';
const REQUEST_TIMEOUT_MS = 15_000;
/** A round ends by then, answered or not. */
const ROUND_LIMIT_MS = REQUEST_TIMEOUT_MS + 30_000;
const BOUND_MB = 100;
const QUERY = JSON.stringify({ query: '{ cities(pageSize: 5) { total items { name } } }' });

const rounds: Array<{ name: string; env: Record<string, string>; bomb: Buffer }> = [
  { name: 'keys', env: { GATEWAY_API_KEYS: KEY, RATE_LIMIT_PER_MINUTE: '60' }, bomb: bombOf(1_040_000) },
  { name: 'open', env: {}, bomb: bombOf(1_040_000) },
  { name: 'stall', env: {}, bomb: bombOf(60_000) },
];

let failed = false;
for (const round of rounds) {
  const result = await soak(round.env, round.bomb, round.name === 'keys');
  const grew = Math.max(result.peak, result.end) - result.start;
  const ok = grew <= BOUND_MB && result.unanswered === 0 && result.legitimate.failed === 0;
  failed ||= !ok;
  console.error(`${round.name.padEnd(6)} ${CONNECTIONS} bombs of ${round.bomb.length} bytes: RSS start ${result.start} MB, peak ${result.peak} MB, `
    + `end ${result.end} MB; answers ${JSON.stringify(result.statuses)}, unanswered ${result.unanswered}; `
    + `legitimate ${result.legitimate.answered} answered, ${result.legitimate.failed} failed; ${(result.ms / 1000).toFixed(1)} s ${ok ? 'ok' : 'FAILED'}`);
}
process.exit(failed ? 1 : 0);

interface RoundResult {
  start: number;
  peak: number;
  end: number;
  statuses: Record<string, number>;
  unanswered: number;
  legitimate: { answered: number; failed: number };
  ms: number;
}

// Private: one round against a fresh gateway.
async function soak(env: Record<string, string>, bomb: Buffer, keyed: boolean): Promise<RoundResult> {
  const port = await freePort();
  const child = spawn(process.execPath, [...GC_ON_SIGNAL, 'dist/main.js'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, NODE_ENV: 'production', PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS), ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitUntilOk(`${url}/healthz`, { method: 'GET' }, child);
    const headers = { 'content-type': 'application/json', ...(keyed && { 'x-api-key': KEY }) };
    for (let i = 0; i < 5; i += 1) await (await fetch(`${url}/graphql`, { method: 'POST', headers, body: QUERY })).arrayBuffer();
    await forceGc(child.pid!, 1000);
    const start = memoryMb(child.pid!).rss;
    let peak = start;
    const sampler = setInterval(() => (peak = Math.max(peak, memoryMb(child.pid!).rss)), 100);
    const began = performance.now();
    let attacking = true;
    const legitimate = legitimateClient(url, headers, () => attacking);
    const outcomes = await attack(port, bomb, began + ROUND_LIMIT_MS);
    attacking = false;
    const legitimateCounts = await legitimate;
    const ms = performance.now() - began;
    await sleep(2000);
    clearInterval(sampler);
    const end = memoryMb(child.pid!).rss;
    peak = Math.max(peak, end);
    const statuses: Record<string, number> = {};
    for (const status of outcomes) if (status !== undefined) statuses[status] = (statuses[status] ?? 0) + 1;
    return { start, peak, end, statuses, unanswered: outcomes.filter((status) => status === undefined).length, legitimate: legitimateCounts, ms };
  } finally {
    await stopProcess(child);
  }
}

// Private: every bomb's connection, BATCH at a time; resolves with each one's status (undefined:
// no answer) once every connection is closed, or at `deadline`, when those still open are cut.
async function attack(port: number, bomb: Buffer, deadline: number): Promise<Array<number | undefined>> {
  const head = 'POST /graphql HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\ncontent-encoding: br\r\n\r\n';
  const body = Buffer.concat([Buffer.from(`${bomb.length.toString(16)}\r\n`), bomb, Buffer.from('\r\n')]);
  const statuses: Array<number | undefined> = [];
  const closed: Array<Promise<void>> = [];
  const sockets: Array<ReturnType<typeof connect>> = [];
  for (let first = 0; first < CONNECTIONS; first += BATCH) {
    const opened = Array.from({ length: Math.min(BATCH, CONNECTIONS - first) }, (_, i) => {
      const index = first + i;
      statuses[index] = undefined;
      const socket = connect(port, '127.0.0.1');
      sockets.push(socket);
      socket.on('error', () => {});
      socket.write(head);
      socket.write(body); // and never the last chunk
      let text = '';
      socket.on('data', (chunk: Buffer) => {
        if (statuses[index] !== undefined) return;
        text += chunk.toString('latin1');
        const status = /^HTTP\/1\.1 (\d{3}) /.exec(text);
        if (status) statuses[index] = Number(status[1]);
      });
      closed.push(new Promise((resolve) => socket.once('close', () => resolve())));
      return new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    });
    await Promise.all(opened);
  }
  const left = deadline - performance.now();
  await Promise.race([Promise.all(closed), sleep(Math.max(0, left))]);
  for (const socket of sockets) socket.destroy();
  return statuses;
}

// Private: a legitimate query a second while `going()` (within RATE_LIMIT_PER_MINUTE=60), each
// answered 200 or counted failed.
async function legitimateClient(url: string, headers: Record<string, string>, going: () => boolean): Promise<{ answered: number; failed: number }> {
  const counts = { answered: 0, failed: 0 };
  while (going()) {
    try {
      const response = await fetch(`${url}/graphql`, { method: 'POST', headers, body: QUERY, signal: AbortSignal.timeout(10_000) });
      await response.arrayBuffer();
      if (response.status === 200) counts.answered += 1;
      else counts.failed += 1;
    } catch {
      counts.failed += 1;
    }
    await sleep(1000);
  }
  return counts;
}

// Private: brotli of `size` spaces, whole: the decoder gives all of it at once, and the request goes on.
function bombOf(size: number): Buffer {
  return brotliCompressSync(Buffer.alloc(size, 0x20));
}
