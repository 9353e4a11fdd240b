/**
 * The two ioredis clients of connection.ts (commands, subscriber) for one server, Sentinel (the
 * primary is found again on each reconnection) or Cluster (a second Cluster subscribes). With TLS
 * on a Cluster, node names are not resolved first, so certificates match the names given.
 */
import type { ConnectionOptions } from 'node:tls';
import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import type { RedisAddress, RedisTls, RedisTopology } from '../base/config/redis.js';

/** A client of any topology: both kinds run the same commands. */
export type RedisClient = Redis | Cluster;

export interface RedisClients {
  /** For commands. */
  redis: RedisClient;
  /** For SUBSCRIBE only; its owner subscribes again on reconnection. */
  subscriber: RedisClient;
  /** Where Redis is, for logs: the topology and hosts and ports, never a credential. */
  where: string;
}

/** The clients of `topology`, each with `options`. */
export function connectTo(topology: RedisTopology, options: RedisOptions): RedisClients {
  const subscribing: RedisOptions = { enableOfflineQueue: true, autoResubscribe: false };
  const tls = tlsOptions(topology.tls);
  switch (topology.kind) {
    case 'single': {
      // A rediss:// URL turns TLS on by itself; a CA file adds the certificates to trust.
      const redis = new Redis(topology.url, topology.tls?.ca === undefined ? options : { ...options, tls });
      return { redis, subscriber: redis.duplicate(subscribing), where: hostOf(topology.url) };
    }
    case 'sentinel': {
      const redis = new Redis({
        ...options,
        sentinels: topology.sentinels,
        name: topology.name,
        sentinelPassword: topology.sentinelPassword,
        username: topology.username,
        password: topology.password,
        ...(tls === undefined ? {} : { tls, enableTLSForSentinelMode: true, sentinelTLS: tls }),
      });
      return { redis, subscriber: redis.duplicate(subscribing), where: `sentinel ${topology.name} at ${list(topology.sentinels)}` };
    }
    case 'cluster': {
      const node = { username: topology.username, password: topology.password, tls };
      return {
        redis: new Cluster(topology.nodes, clusterOptions(options, node)),
        subscriber: new Cluster(topology.nodes, clusterOptions({ ...options, ...subscribing }, node)),
        where: `cluster at ${list(topology.nodes)}`,
      };
    }
  }
}

// Private: a Redis client's options split into the Cluster's own and its nodes' (`redisOptions`).
function clusterOptions(options: RedisOptions, node: Pick<RedisOptions, 'username' | 'password' | 'tls'>): ClusterOptions {
  const { retryStrategy, enableOfflineQueue, enableAutoPipelining, ...common } = options;
  return {
    enableOfflineQueue,
    enableAutoPipelining,
    // The Cluster reconnects as a whole with the same backoff; ioredis relearns slots for single nodes.
    clusterRetryStrategy: retryStrategy,
    slotsRefreshTimeout: options.connectTimeout,
    ...(node.tls === undefined ? {} : { dnsLookup: (address, callback) => callback(null, address) }),
    redisOptions: { ...common, ...node },
  };
}

// Private: Node's TLS options for `tls`, `undefined` for plain TCP.
function tlsOptions(tls: RedisTls | undefined): ConnectionOptions | undefined {
  if (tls === undefined) return undefined;
  return tls.ca === undefined ? {} : { ca: tls.ca };
}

// Private: `host:port` of a `redis://` URL, without its credentials.
function hostOf(url: string): string {
  return new URL(url).host;
}

function list(addresses: readonly RedisAddress[]): string {
  return addresses.map(({ host, port }) => (host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`)).join(',');
}
