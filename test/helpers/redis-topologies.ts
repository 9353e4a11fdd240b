/**
 * The Redis topologies besides one server (redis.ts), of the test's own, on free ports, in a
 * temporary folder, without persistence:
 * - Sentinel: a primary, its replica and three sentinels (quorum 2) that fail over within a few
 *   seconds of the primary's death;
 * - Cluster: three primaries holding all 16,384 slots, made by `redis-cli --cluster create`.
 * Each asks for credentials, so the gateway's are proven too: the Sentinel's data nodes a
 * password (`REDIS_PASSWORD`) and its sentinels another (`REDIS_SENTINEL_PASSWORD`), the
 * Cluster an ACL user (`REDIS_USERNAME`, the default user off). With `tls`, every server listens
 * over TLS only, with a certificate of a private CA (`REDIS_TLS`, `REDIS_TLS_CA_FILE`). Needs
 * redis-server, redis-sentinel, redis-cli and openssl on the PATH (`.ci/run` installs them).
 *
 * @example
 * const cluster = await startRedisCluster();
 * const gateway = await startGateway({ env: cluster.env });
 * await cluster.close(); // every process ended, the folder removed
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Cluster, Redis, type RedisOptions } from 'ioredis';
import { freePorts } from './redis.js';
import { makeTestCertificates, tlsServerArgs } from './test-certificates.js';

/** A Redis the fleet's replicas share, whatever its topology (redis.ts's TestRedis is one too). */
export interface TestTopology {
  /** The gateway's variables that point at it, credentials included. */
  readonly env: Record<string, string>;
  /** A client that reaches every key (made on first use, closed by `close`). */
  client(): Redis | Cluster;
  /** The keys that match `pattern`, on every primary. */
  keys(pattern: string): Promise<string[]>;
  /** Empties every primary. */
  flush(): Promise<void>;
  /** Ends every process and removes every file. */
  close(): Promise<void>;
}

export interface TestSentinel extends TestTopology {
  /** The primary's port, as the sentinels say now. */
  primaryPort(): Promise<number>;
  /** Kills the primary (SIGKILL: connections drop at once); the sentinels then promote the replica. */
  killPrimary(): Promise<void>;
}

const GROUP = 'vg-primary';
const PASSWORD = 'data-pa55';
const SENTINEL_PASSWORD = 'sentinel-pa55';
const CLUSTER_USER = 'gateway';
const CLUSTER_PASSWORD = 'cluster-pa55';
/** Generous: processes start slowly on a busy machine. */
const READY_TIMEOUT_MS = 60_000;
const NO_PERSISTENCE = ['--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];

export interface TopologyOptions {
  /** Every server over TLS only; the gateway gets REDIS_TLS and REDIS_TLS_CA_FILE. Default false. */
  tls?: boolean;
}

export async function startRedisSentinel(options: TopologyOptions = {}): Promise<TestSentinel> {
  const group = await startGroup('vg-sentinel-');
  try {
    const [primary, replica, ...sentinels] = (await freePorts(5)) as [number, number, ...number[]];
    const tls = await group.tls(options, ['--tls-replication', 'yes']);
    // In the folder: a replica writes the primary's snapshot to disk while it syncs.
    const auth = ['--requirepass', PASSWORD, '--masterauth', PASSWORD, '--dir', group.dir, ...NO_PERSISTENCE];
    const primaryProcess = group.spawn('redis-server', [...tls.listen(primary), ...auth]);
    group.spawn('redis-server', [...tls.listen(replica), ...auth, '--replicaof', '127.0.0.1', String(primary),
      '--repl-diskless-sync', 'yes', '--repl-diskless-sync-delay', '0']);
    for (const port of sentinels) {
      const file = join(group.dir, `sentinel-${port}.conf`); // a sentinel rewrites its own file
      // Down after 2 s without an answer: quick, yet no false failover on a busy machine.
      await writeFile(file, [...pairs(tls.listen(port)), 'bind 127.0.0.1', `dir ${group.dir}`, `requirepass ${SENTINEL_PASSWORD}`,
        `sentinel monitor ${GROUP} 127.0.0.1 ${primary} 2`, `sentinel auth-pass ${GROUP} ${PASSWORD}`,
        `sentinel down-after-milliseconds ${GROUP} 2000`, `sentinel failover-timeout ${GROUP} 5000`, ''].join('\n'));
      group.spawn('redis-sentinel', [file]);
    }
    const asking = sentinels.map((port) => group.client({ port, password: SENTINEL_PASSWORD, ...tls.client }));
    const replicaClient = group.client({ port: replica, password: PASSWORD, ...tls.client });
    await until('the sentinels to know each other, the primary and its synced replica', async () => {
      const link = await replicaClient.info('replication');
      if (!link.includes('master_link_status:up')) return false;
      const views = await Promise.all(asking.map(async (sentinel) => [
        await sentinel.call('SENTINEL', 'CKQUORUM', GROUP),
        (await sentinel.call('SENTINEL', 'REPLICAS', GROUP) as unknown[]).length,
        (await sentinel.call('SENTINEL', 'SENTINELS', GROUP) as unknown[]).length,
      ]));
      return views.every(([quorum, replicas, others]) => String(quorum).startsWith('OK') && replicas === 1 && others === 2);
    });
    const addresses = sentinels.map((port) => ({ host: '127.0.0.1', port }));
    const client = lazily(() => group.track(new Redis({
      sentinels: addresses, name: GROUP, password: PASSWORD, sentinelPassword: SENTINEL_PASSWORD, maxRetriesPerRequest: 1,
      ...(tls.client.tls === undefined ? {} : { ...tls.client, enableTLSForSentinelMode: true, sentinelTLS: tls.client.tls }),
    })));
    return {
      env: {
        REDIS_SENTINELS: addresses.map(({ host, port }) => `${host}:${port}`).join(','),
        REDIS_SENTINEL_NAME: GROUP,
        REDIS_PASSWORD: PASSWORD,
        REDIS_SENTINEL_PASSWORD: SENTINEL_PASSWORD,
        ...tls.env,
      },
      client,
      keys: (pattern) => client().keys(pattern),
      flush: async () => void (await client().flushall()),
      async primaryPort() {
        const [, port] = (await asking[0]!.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', GROUP)) as string[];
        return Number(port);
      },
      killPrimary: () => group.kill(primaryProcess),
      close: group.close,
    };
  } catch (error) {
    await group.close();
    throw error;
  }
}

/** Tries to start a cluster: a port found free may be taken again before its server binds it. */
const CLUSTER_ATTEMPTS = 3;

export async function startRedisCluster(options: TopologyOptions = {}): Promise<TestTopology> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await startClusterOnce(options);
    } catch (error) {
      if (attempt === CLUSTER_ATTEMPTS) throw error;
    }
  }
}

async function startClusterOnce(options: TopologyOptions): Promise<TestTopology> {
  const group = await startGroup('vg-cluster-');
  try {
    // Each node's bus port is chosen too (port + 10000, the default, may be taken or out of range).
    const free = await freePorts(6);
    const [ports, busPorts] = [free.slice(0, 3), free.slice(3)];
    const tls = await group.tls(options, ['--tls-cluster', 'yes']);
    const user = ['--user', 'default', 'off', '--user', CLUSTER_USER, 'on', `>${CLUSTER_PASSWORD}`, '~*', '&*', '+@all'];
    const servers = ports.map((port, i) => group.spawn('redis-server', [...tls.listen(port), '--cluster-enabled', 'yes', '--cluster-port', String(busPorts[i]),
      '--cluster-config-file', join(group.dir, `nodes-${port}.conf`), '--dir', group.dir, ...user, ...NO_PERSISTENCE]));
    const credentials = { username: CLUSTER_USER, password: CLUSTER_PASSWORD, ...tls.client };
    const nodes = ports.map((port) => group.client({ port, ...credentials }));
    // A server that exits (its port taken meanwhile) fails the attempt at once, not after the timeout.
    const exited = Promise.race(servers.map((server) => once(server, 'exit').then(() => {
      throw new Error('a cluster node exited while starting');
    })));
    exited.catch(() => {});
    await Promise.race([exited, until('the nodes to start', async () => (await Promise.all(nodes.map((node) => node.ping()))).every((pong) => pong === 'PONG'))]);
    await group.run('redis-cli', [...tls.cli, '--user', CLUSTER_USER, '--pass', CLUSTER_PASSWORD, '--no-auth-warning', '--cluster', 'create',
      ...ports.map((port) => `127.0.0.1:${port}`), '--cluster-replicas', '0', '--cluster-yes']);
    await until('cluster_state:ok on every node', async () =>
      (await Promise.all(nodes.map((node) => node.call('CLUSTER', 'INFO') as Promise<string>))).every((info) => info.includes('cluster_state:ok')));
    const client = lazily(() => group.track(new Cluster(ports.map((port) => ({ host: '127.0.0.1', port })), { redisOptions: credentials })));
    return {
      env: {
        REDIS_CLUSTER_NODES: ports.map((port) => `127.0.0.1:${port}`).join(','),
        REDIS_USERNAME: CLUSTER_USER,
        REDIS_PASSWORD: CLUSTER_PASSWORD,
        ...tls.env,
      },
      client,
      keys: async (pattern) => (await Promise.all(nodes.map((node) => node.keys(pattern)))).flat(),
      flush: async () => void (await Promise.all(nodes.map((node) => node.flushall()))),
      close: group.close,
    };
  } catch (error) {
    await group.close();
    throw error;
  }
}

/** Resolves once `check` holds (a failing check counts as not yet), polling; fails after `ms`. */
export async function until(what: string, check: () => Promise<boolean>, ms = READY_TIMEOUT_MS): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`waited ${ms} ms for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

// Private: the processes, clients and folder of one topology, all ended by `close`.
async function startGroup(prefix: string) {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  const processes = new Set<ChildProcess>();
  const clients = new Set<Redis | Cluster>();
  const kill = async (child: ChildProcess) => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = once(child, 'exit');
      child.kill('SIGKILL');
      await exited;
    }
    processes.delete(child);
  };
  const track = <C extends Redis | Cluster>(client: C): C => {
    clients.add(client);
    client.on('error', () => {}); // reconnects quietly while a server is down
    return client;
  };
  return {
    dir,
    track,
    spawn(command: string, args: string[]): ChildProcess {
      const child = spawn(command, args, { stdio: 'ignore' });
      child.once('error', () => {}); // a missing binary shows as a server that never answers
      processes.add(child);
      return child;
    },
    /** A command that must succeed, e.g. redis-cli; its output in the error when it fails. */
    async run(command: string, args: string[]): Promise<void> {
      const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      child.stdout.on('data', (chunk) => (output += String(chunk)));
      child.stderr.on('data', (chunk) => (output += String(chunk)));
      const [code] = (await once(child, 'exit')) as [number | null];
      if (code !== 0) throw new Error(`${command} ${args.join(' ')} exited with ${code}:\n${output}`);
    },
    /**
     * How its servers listen (`listen(port)`: arguments, `serverArgs` added for TLS), and what
     * clients, redis-cli and the gateway need to reach them: plain TCP, or TLS with a new CA.
     */
    async tls(options: TopologyOptions, serverArgs: string[]) {
      if (options.tls !== true) {
        return { listen: (port: number) => ['--port', String(port)], client: {} as Pick<RedisOptions, 'tls'>, cli: [] as string[], env: {} as Record<string, string> };
      }
      const certificates = await makeTestCertificates(dir);
      return {
        listen: (port: number) => [...tlsServerArgs(certificates, port), ...serverArgs],
        client: { tls: { ca: certificates.ca } } as Pick<RedisOptions, 'tls'>,
        cli: ['--tls', '--cacert', certificates.caFile],
        env: { REDIS_TLS: 'true', REDIS_TLS_CA_FILE: certificates.caFile } as Record<string, string>,
      };
    },
    /** A plain connection to one server (or sentinel), closed with the group. */
    client: (options: RedisOptions) => track(new Redis({ host: '127.0.0.1', maxRetriesPerRequest: 1, ...options })),
    kill,
    async close() {
      for (const client of clients) client.disconnect();
      await Promise.all([...processes].map(kill));
      await rm(dir, { recursive: true, force: true });
    },
  };
}

// Private: `--name value` arguments as configuration lines (`name value`), for a sentinel's file.
function pairs(args: string[]): string[] {
  const lines: string[] = [];
  for (let i = 0; i < args.length; i += 2) lines.push(`${args[i]!.slice(2)} ${args[i + 1]}`);
  return lines;
}

function lazily<T>(make: () => T): () => T {
  let made: T | undefined;
  return () => (made ??= make());
}
