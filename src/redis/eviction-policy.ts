/**
 * The `maxmemory-policy` the gateway needs of Redis: `volatile-lru` (or another `volatile-*`).
 * Every cache key the gateway writes has an expiry, and the token and the locks have none
 * (upstream/token/redis-store.ts, fill.ts), so that a full Redis evicts cache entries only. Under an
 * `allkeys-*` policy any key may go, the token first (it is read only at a refresh); under
 * `noeviction` a full Redis refuses every write, the token's too.
 *
 * Checked once connected (`CONFIG GET`, on every primary of a Cluster), and told in one warning
 * per policy found. A managed Redis may refuse `CONFIG`: then nothing is said, nor counted.
 */
import { Cluster } from 'ioredis';
import type { Logger } from '../base/logger.js';
import type { RedisClient } from './clients.js';
import type { RedisConnection } from './connection.js';

/** The policies under which Redis evicts only keys with an expiry. */
const NEEDED = /^volatile-/;

/** Warns on `logger` when Redis evicts under a policy the gateway does not work with; never rejects. */
export async function checkEvictionPolicy(connection: RedisConnection, logger: Logger): Promise<void> {
  const policies = await connection.run('config', (redis) => policiesOf(redis), 'background');
  for (const policy of new Set(policies ?? [])) {
    if (NEEDED.test(policy)) continue;
    logger.warn(
      { maxmemoryPolicy: policy },
      `redis maxmemory-policy is ${policy}: set volatile-lru, under which a full Redis evicts cache entries only, never the fleet's token or a lock`,
    );
  }
}

// Private: the policy of each primary; none that refused to say (a managed Redis's CONFIG).
async function policiesOf(redis: RedisClient): Promise<string[]> {
  const nodes = redis instanceof Cluster ? redis.nodes('master') : [redis];
  const replies = await Promise.all(nodes.map((node) => node.config('GET', 'maxmemory-policy').catch(() => undefined)));
  return replies.flatMap((reply) => (Array.isArray(reply) && typeof reply[1] === 'string' ? [reply[1]] : []));
}
