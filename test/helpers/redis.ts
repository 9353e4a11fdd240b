/**
 * A redis-server of the test's own, on a free port, without persistence: `stop()` and `start()`
 * again give an empty Redis on the same port, as after a crash. Needs `redis-server` on the PATH
 * (`.ci/run` installs it).
 *
 * @example
 * const redis = await startRedis();
 * const gateway = await startGateway({ env: { REDIS_URL: redis.url } });
 * await redis.stop(); // … Redis is down …
 * await redis.start();
 * await redis.close();
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer, connect } from 'node:net';
import { Redis } from 'ioredis';
import type { TestTopology } from './redis-topologies.js';

export interface TestRedis extends TestTopology {
  /** `redis://127.0.0.1:<port>`. */
  readonly url: string;
  /** A plain client to look at or tamper with keys (made on first use, closed by `close`). */
  client(): Redis;
  /** Stops the server (SIGKILL: connections drop at once, nothing is saved). */
  stop(): Promise<void>;
  /** Starts it again, empty, on the same port; resolves once it answers PING. */
  start(): Promise<void>;
  /** Freezes the server (SIGSTOP): connections stay open, commands get no answer. */
  pause(): void;
  /** Lets a frozen server go on (SIGCONT). */
  resume(): void;
  close(): Promise<void>;
}

const READY_TIMEOUT_MS = 10_000;

export async function startRedis(): Promise<TestRedis> {
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  let server: ChildProcess | undefined = await launch(port);
  let client: Redis | undefined;

  const stop = async () => {
    if (server === undefined) return;
    const exited = once(server, 'exit');
    server.kill('SIGKILL');
    await exited;
    server = undefined;
  };
  const plain = () => {
    if (client === undefined) {
      client = new Redis(url, { maxRetriesPerRequest: 1 });
      client.on('error', () => {}); // reconnects quietly while the server is stopped
    }
    return client;
  };
  return {
    url,
    env: { REDIS_URL: url },
    client: plain,
    keys: (pattern) => plain().keys(pattern),
    flush: async () => void (await plain().flushall()),
    stop,
    async start() {
      server ??= await launch(port);
    },
    pause: () => void server?.kill('SIGSTOP'),
    resume: () => void server?.kill('SIGCONT'),
    async close() {
      client?.disconnect();
      await stop();
    },
  };
}

// Private: redis-server on `port`, once it answers PING.
async function launch(port: number): Promise<ChildProcess> {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
  });
  const failed = new Promise<never>((_, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`redis-server exited with code ${code} before answering PING`)));
  });
  await Promise.race([untilPong(port), failed]);
  return child;
}

// Private: polls PING over a raw socket until +PONG comes back.
async function untilPong(port: number): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (await pings(port)) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`redis-server on port ${port} did not answer PING within ${READY_TIMEOUT_MS} ms`);
}

function pings(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.setTimeout(500);
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => {
      socket.destroy();
      resolve(data.toString().startsWith('+PONG'));
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

/** `count` TCP ports free now on 127.0.0.1, all different (each held until all are found). */
export async function freePorts(count: number): Promise<number[]> {
  const probes = await Promise.all(Array.from({ length: count }, () => new Promise<ReturnType<typeof createServer>>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => resolve(probe));
  })));
  const ports = probes.map((probe) => (probe.address() as { port: number }).port);
  await Promise.all(probes.map((probe) => new Promise((resolve) => probe.close(resolve))));
  return ports;
}

/** A TCP port free now on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}
