/**
 * The bench's own `redis-server` for the scale-out scenario: a free port on 127.0.0.1, no
 * persistence (`--save '' --appendonly no`, nothing written to disk), pinned to the core of the
 * system under test. Redis is part of the scaled-out gateway: on the load generator's core it
 * would take that core's CPU and hide its own cost from the replicas' figures.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { SUT_CORE } from '../config.js';
import { freePort, pinned, stopProcess } from './child.js';

/** The running redis-server. */
export interface BenchRedis {
  /** `redis://127.0.0.1:<port>`, for the gateways' `REDIS_URL`. */
  url: string;
  /** Empty it (FLUSHALL): every replica count starts from a cold shared cache and no token. */
  flush(): Promise<void>;
  close(): Promise<void>;
}

const READY_TIMEOUT_MS = 10_000;

/** Start redis-server; resolves once it answers PING. Needs `redis-server` on the PATH. */
export async function startRedis(): Promise<BenchRedis> {
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  const [command, args] = pinned(SUT_CORE, 'redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no']);
  const child = spawn(command, args, { stdio: 'ignore' });
  // Reconnects every 50 ms while the server starts; the PING loop below bounds the wait.
  const client = new Redis(url, { maxRetriesPerRequest: 1, retryStrategy: () => 50 });
  client.on('error', () => {}); // refused connections while it starts; a real failure ends untilPong
  try {
    await untilPong(client, child);
  } catch (error) {
    client.disconnect();
    await stopProcess(child);
    throw error;
  }
  return {
    url,
    flush: async () => void (await client.flushall()),
    close: async () => {
      client.disconnect();
      await stopProcess(child);
    },
  };
}

// Private: PING until PONG (at most READY_TIMEOUT_MS); fail at once if the server exits.
async function untilPong(client: Redis, child: ChildProcess): Promise<void> {
  let spawnError: Error | undefined;
  child.once('error', (error) => (spawnError = error)); // e.g. no redis-server on the PATH
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (spawnError) throw new Error(`redis-server could not start: ${spawnError.message}`);
    if (child.exitCode !== null) throw new Error(`redis-server exited (${child.exitCode}) before answering PING`);
    if ((await client.ping().catch(() => 'not yet')) === 'PONG') return;
    await sleep(50);
  }
  throw new Error(`redis-server did not answer PING within ${READY_TIMEOUT_MS} ms`);
}
