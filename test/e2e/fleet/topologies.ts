/**
 * The Redis topologies the fleet's sharing tests run on (sharing.test.ts, token.test.ts): what
 * two replicas do on one Redis server, they must do on a Redis Cluster too, where keys live in
 * slots on several nodes and the subscriber listens on one of them. Sentinel's failover has its
 * own test (sentinel.test.ts).
 */
import { afterAll, beforeAll } from 'vitest';
import { startRedisCluster, type TestTopology } from '../../helpers/redis-topologies.js';

export interface Topology {
  /** For test names: `one Redis server`, `a Redis Cluster`. */
  name: string;
  /** Starts it; none for one server, which each fleet starts for itself. */
  start?: () => Promise<TestTopology>;
}

export const TOPOLOGIES: readonly Topology[] = [
  { name: 'one Redis server' },
  { name: 'a Redis Cluster', start: startRedisCluster },
];

/**
 * Within a `describe`: the topology's Redis, started before its tests and closed after them (a
 * fleet empties it first), for `startFleet({ redis })`. `undefined` for one server.
 */
export function redisOf(topology: Topology): () => TestTopology | undefined {
  let redis: TestTopology | undefined;
  beforeAll(async () => {
    redis = await topology.start?.();
  }, 120_000); // a bound for a hung start: each of its waits polls for up to 60 s
  afterAll(async () => {
    await redis?.close();
  });
  return () => redis;
}
