/**
 * The gateway needs a `volatile-*` `maxmemory-policy`: cache keys expire while the token and
 * locks do not, so a full Redis evicts cache entries only. Checked once connected, on every
 * primary; a managed Redis that refuses `CONFIG` is not warned about.
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
