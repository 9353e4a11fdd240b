/**
 * The Redis variables: exactly one topology (one server, Sentinel or Cluster) and its tunables.
 * Credentials live in one place per topology (the URL, or `REDIS_USERNAME`/`REDIS_PASSWORD`), and
 * no value that may hold a secret is ever echoed in a problem.
 */
import { readFileSync } from 'node:fs';
import { isIPv6 } from 'node:net';
import { present, type Env, type Reader } from './readers.js';

/** A Redis server's address: a host name, an IPv4 address or an IPv6 address (no brackets). */
export interface RedisAddress {
  host: string;
  port: number;
}

/** What the data nodes of Sentinel and Cluster ask: `REDIS_USERNAME`, `REDIS_PASSWORD`; never logged. */
export interface RedisCredentials {
  username: string | undefined;
  password: string | undefined;
}

/** TLS to Redis: `REDIS_TLS` (Sentinel, Cluster) or a `rediss://` URL. */
export interface RedisTls {
  /** `REDIS_TLS_CA_FILE`: PEM certificates of the CAs to trust instead of the system's. Default: none. */
  ca: string | undefined;
}

/** Where Redis is: exactly one of the three topologies, and whether over TLS. */
export type RedisTopology = { /** Absent: plain TCP. */ tls?: RedisTls | undefined } & (
  | { kind: 'single'; /** `REDIS_URL`; never logged or echoed (it may hold a password). */ url: string }
  | {
    kind: 'sentinel';
    /** `REDIS_SENTINELS`: comma-separated `host:port` of the sentinels (`[::1]:26379` for IPv6). */
    sentinels: RedisAddress[];
    /** `REDIS_SENTINEL_NAME`: the primary's group name in the sentinels' configuration (e.g. `mymaster`). */
    name: string;
    /** `REDIS_SENTINEL_PASSWORD`: the sentinels' own password (`requirepass` in sentinel.conf). Default: none. */
    sentinelPassword: string | undefined;
  } & RedisCredentials
  | {
    kind: 'cluster';
    /** `REDIS_CLUSTER_NODES`: comma-separated `host:port` of some of the cluster's nodes (seeds). */
    nodes: RedisAddress[];
  } & RedisCredentials);

/** Where replicas share their cache and upstream token (see scale-out.ts). */
export interface RedisConfig {
  /** `REDIS_URL`, `REDIS_SENTINELS` or `REDIS_CLUSTER_NODES`, with what each needs. */
  topology: RedisTopology;
  /** `REDIS_COMMAND_TIMEOUT_MS`: bound on each Redis command, in ms; slower counts as Redis down. Default 1000. */
  commandTimeoutMs: number;
  /** `REDIS_FILL_WAIT_MS`: how long to wait for the replica loading the same data, in ms. Default 2000. */
  fillWaitMs: number;
  /** `REDIS_RESPONSE_CACHE_MAX_BYTES`: bytes of whole answers shared in Redis; 0 not shared. Default 64 MiB. */
  answersMaxBytes: number;
}

const TOPOLOGIES = ['REDIS_URL', 'REDIS_SENTINELS', 'REDIS_CLUSTER_NODES'] as const;

/** The Redis settings, or `undefined` (single-process mode); tunables are checked either way. */
export function readRedis(env: Env, read: Reader, problems: string[]): RedisConfig | undefined {
  const topology = readTopology(env, read, problems);
  const commandTimeoutMs = read.int('REDIS_COMMAND_TIMEOUT_MS', 1000, 1, 60_000);
  const fillWaitMs = read.int('REDIS_FILL_WAIT_MS', 2000, 0, 600_000);
  const answersMaxBytes = read.int('REDIS_RESPONSE_CACHE_MAX_BYTES', 67_108_864, 0, 68_719_476_736);
  return topology === undefined ? undefined : { topology, commandTimeoutMs, fillWaitMs, answersMaxBytes };
}

// Private: the one topology named, or `undefined` (none, or a problem recorded).
function readTopology(env: Env, read: Reader, problems: string[]): RedisTopology | undefined {
  const named = TOPOLOGIES.filter((name) => present(env[name]));
  const credentials = readCredentials(env, named[0], problems);
  const tls = readTls(env, read, named[0], problems);
  if (!named.includes('REDIS_SENTINELS')) {
    for (const name of ['REDIS_SENTINEL_NAME', 'REDIS_SENTINEL_PASSWORD']) {
      if (present(env[name])) problems.push(`${name} is set, but REDIS_SENTINELS is not: it only applies to Redis Sentinel`);
    }
  }
  if (named.length > 1) {
    problems.push(`Set one Redis topology: REDIS_URL (one server), REDIS_SENTINELS (Sentinel) or REDIS_CLUSTER_NODES (Cluster), but ${named.join(', ')} are set`);
    return undefined;
  }
  switch (named[0]) {
    case undefined:
      return undefined;
    case 'REDIS_URL': {
      const url = read.redisUrl('REDIS_URL');
      return url === undefined || tls === null ? undefined : { kind: 'single', url, tls };
    }
    case 'REDIS_SENTINELS': {
      const sentinels = readAddresses(env, 'REDIS_SENTINELS', problems);
      const name = env.REDIS_SENTINEL_NAME?.trim() ?? '';
      if (name === '') problems.push('REDIS_SENTINEL_NAME is required with REDIS_SENTINELS: the name of the primary\'s group in the sentinels\' configuration (sentinel monitor <name> …), e.g. mymaster');
      const sentinelPassword = present(env.REDIS_SENTINEL_PASSWORD) ? env.REDIS_SENTINEL_PASSWORD : undefined;
      return sentinels === undefined || name === '' || credentials === undefined || tls === null
        ? undefined
        : { kind: 'sentinel', sentinels, name, sentinelPassword, ...credentials, tls };
    }
    case 'REDIS_CLUSTER_NODES': {
      const nodes = readAddresses(env, 'REDIS_CLUSTER_NODES', problems);
      return nodes === undefined || credentials === undefined || tls === null ? undefined : { kind: 'cluster', nodes, ...credentials, tls };
    }
  }
}

// Private: REDIS_USERNAME and REDIS_PASSWORD, which only Sentinel and Cluster take.
function readCredentials(env: Env, topology: string | undefined, problems: string[]): RedisCredentials | undefined {
  const username = present(env.REDIS_USERNAME) ? env.REDIS_USERNAME.trim() : undefined;
  const password = present(env.REDIS_PASSWORD) ? env.REDIS_PASSWORD : undefined;
  if (username === undefined && password === undefined) return { username, password };
  const set = username === undefined ? 'REDIS_PASSWORD applies' : password === undefined ? 'REDIS_USERNAME applies' : 'REDIS_USERNAME and REDIS_PASSWORD apply';
  if (topology === 'REDIS_URL') {
    problems.push(`${set} to REDIS_SENTINELS and REDIS_CLUSTER_NODES; with REDIS_URL, put the credentials in the URL (redis://user:password@host:port)`);
    return undefined;
  }
  if (topology === undefined) {
    problems.push(`${set} to REDIS_SENTINELS and REDIS_CLUSTER_NODES, but neither is set`);
    return undefined;
  }
  if (password === undefined) {
    problems.push('REDIS_USERNAME needs REDIS_PASSWORD: Redis authenticates a user by its password');
    return undefined;
  }
  return { username, password };
}

// Private: TLS as asked, `undefined` for none, `null` for a problem recorded.
function readTls(env: Env, read: Reader, topology: string | undefined, problems: string[]): RedisTls | undefined | null {
  const asked = read.bool('REDIS_TLS', false);
  const caFile = present(env.REDIS_TLS_CA_FILE) ? env.REDIS_TLS_CA_FILE.trim() : undefined;
  if (asked && topology !== 'REDIS_SENTINELS' && topology !== 'REDIS_CLUSTER_NODES') {
    problems.push(topology === 'REDIS_URL'
      ? 'REDIS_TLS applies to REDIS_SENTINELS and REDIS_CLUSTER_NODES; with REDIS_URL, use a rediss:// URL'
      : 'REDIS_TLS applies to REDIS_SENTINELS and REDIS_CLUSTER_NODES, but neither is set');
    return null;
  }
  const on = asked || (topology === 'REDIS_URL' && /^rediss:/i.test(env.REDIS_URL!.trim()));
  if (caFile === undefined) return on ? { ca: undefined } : undefined;
  if (!on) {
    problems.push('REDIS_TLS_CA_FILE is set, but Redis is not reached over TLS: set REDIS_TLS=true (Sentinel, Cluster) or use a rediss:// URL');
    return null;
  }
  let ca: string;
  try {
    ca = readFileSync(caFile, 'utf8');
  } catch (error) {
    problems.push(`REDIS_TLS_CA_FILE must be a readable file of PEM certificates, but ${JSON.stringify(caFile)} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    return null;
  }
  if (!ca.includes('-----BEGIN CERTIFICATE-----')) {
    problems.push(`REDIS_TLS_CA_FILE must be a readable file of PEM certificates, but ${JSON.stringify(caFile)} holds none`);
    return null;
  }
  return { ca };
}

// Private: `host:port` entries, or `undefined` and a problem; an entry that may hold a password is not echoed.
function readAddresses(env: Env, name: string, problems: string[]): RedisAddress[] | undefined {
  const entries = (env[name] ?? '').split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
  const bad = entries.filter((entry) => parseAddress(entry) === undefined);
  if (entries.length > 0 && bad.length === 0) return entries.map((entry) => parseAddress(entry)!);
  const shown = bad.map((entry) => (/[@/]/.test(entry) ? '(an entry not shown: it may hold a password)' : JSON.stringify(entry)));
  problems.push(`${name} must be comma-separated host:port addresses, e.g. redis-0.redis:6379,10.0.0.7:6379,[fd00::7]:6379 `
    + `(IPv6 in brackets; credentials go in REDIS_USERNAME and REDIS_PASSWORD), but got: ${entries.length === 0 ? 'no address' : shown.join(', ')}`);
  return undefined;
}

/** Host names and IPv4 addresses: letters, digits, dots, hyphens and underscores. */
const HOST_NAME = /^[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_])?$/;

// Private: `host:port` or `[ipv6]:port`, port 1 to 65535.
function parseAddress(entry: string): RedisAddress | undefined {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(entry);
  if (match === null) return undefined;
  const [, ipv6, host, portText] = match;
  const port = Number(portText);
  if (port < 1 || port > 65_535) return undefined;
  if (ipv6 !== undefined) return isIPv6(ipv6) ? { host: ipv6, port } : undefined;
  return HOST_NAME.test(host!) ? { host: host!, port } : undefined;
}
