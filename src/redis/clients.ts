/**
 * The two ioredis clients of connection.ts, for each Redis topology (base/config/redis.ts): one for
 * commands, and one in subscriber mode. Both take connection.ts's options (bounded, no offline
 * queue for commands, quick reconnection), on each topology's terms:
 *
 * - One server (`REDIS_URL`): `new Redis(url)`.
 * - Sentinel: `new Redis({ sentinels, name })`. ioredis asks the sentinels where the primary is
 *   on every (re)connection and checks that the node it reaches is a primary, so after a
 *   failover the reconnection finds the promoted replica (a failover the sentinels run, planned
 *   or not, closes the old primary's connections). The subscriber is a second such connection:
 *   it follows the primary the same way.
 * - Cluster: `new Cluster(nodes, { redisOptions })`: a connection per primary, each command
 *   sent to the node that owns its key's slot (ioredis follows MOVED and ASK, and learns the
 *   slots again after a failover). A script or multi-key command must name keys of one slot:
 *   the gateway's keys carry hash tags for that (scale-out.ts). The subscriber is a second
 *   Cluster, as ioredis recommends: it subscribes through one node it picks (another if that one
 *   goes), and a PUBLISH on any node reaches every node.
 *
 * TLS (base/config/redis.ts): with Sentinel, to the sentinels and the data nodes alike; with a
 * Cluster, ioredis is kept from resolving the node names first, so that certificates are checked
 * against the names given (as its documentation advises for managed clusters).
 */
import type { ConnectionOptions } from 'node:tls';
import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import type { RedisAddress, RedisTls, RedisTopology } from '../base/config/redis.js';

/** A client of any topology: both kinds run the same commands. */
export type RedisClient = Redis | Cluster;

export interface RedisClients {
  /** For commands: `options` as given. */
  redis: RedisClient;
  /** For SUBSCRIBE only: queues it until connected, and leaves subscribing again to its owner. */
  subscriber: RedisClient;
  /** Where Redis is, for logs: the topology and hosts and ports, never a credential. */
  where: string;
}

/** The clients of `topology`, each with `options` (connection.ts's: timeouts, queue, reconnection). */
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
    // The Cluster reconnects as a whole (when every node is lost) with the same backoff; single
    // nodes are not retried, ioredis learns the slots again instead.
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
