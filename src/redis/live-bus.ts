/**
 * What the live pollers share (live/fleet-poller.ts): a lease per watched key, so one replica
 * polls it for the fleet, and a channel where the holder publishes each read as a header line
 * `[replica id, key]` and the body (empty for a released lease, so a waiter claims at once).
 */
import { randomUUID } from 'node:crypto';
import type { RedisConnection } from './connection.js';

export interface LiveBus {
  /** Whether both connections to Redis are up. */
  readonly usable: boolean;
  /** Takes or renews the leases of `keys` for `ttlMs`: per key 0 if held here, else ms left on another's; `undefined` if Redis failed. */
  claim(keys: readonly string[], ttlMs: number): Promise<number[] | undefined>;
  /** Gives up this replica's leases of `keys` (in the background) and tells the others. */
  release(keys: readonly string[]): void;
  /** Publishes `body` (not empty) as the read of `key`; false when Redis failed or is down. */
  publish(key: string, body: string): Promise<boolean>;
  /** Hands each read other replicas publish to `onRead` (`body` empty: lease released) until unsubscribed. */
  listen(onRead: (key: string, body: string) => void): () => void;
  /** Counts an unreadable message. */
  unreadable(): void;
  /** Resolves once the releases sent so far are done: call before closing the connection. */
  settle(): Promise<void>;
}

/** Takes or renews each lease in KEYS for ARGV[1]; 0 for one held now, else the ms left on another's. */
const CLAIM = `
local left = {}
for i, key in ipairs(KEYS) do
  local holder = redis.call('GET', key)
  if holder == false then
    redis.call('SET', key, ARGV[1], 'PX', ARGV[2])
    left[i] = 0
  elseif holder == ARGV[1] then
    redis.call('PEXPIRE', key, ARGV[2])
    left[i] = 0
  else
    local ttl = redis.call('PTTL', key)
    if ttl < 1 then ttl = tonumber(ARGV[2]) end
    left[i] = ttl
  end
end
return left`;

/** Deletes each lease in KEYS that ARGV[1] holds and announces it on ARGV[2]: header lines ARGV[3..]. */
const RELEASE = `
for i, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[1] then
    redis.call('DEL', key)
    redis.call('PUBLISH', ARGV[2], ARGV[i + 2] .. '\\n')
  end
end
return 1`;

/** The leases and the channel of reads of the live pollers, over the replica's Redis `connection`. */
export function createLiveBus(connection: RedisConnection, { prefix, replicaId = randomUUID() }: {
  /** Prefix of the leases and channel; its hash tag keeps the leases in one slot, as the scripts need. */
  prefix: string;
  /** This replica's id in leases and messages. Default: a random UUID. */
  replicaId?: string;
}): LiveBus {
  const channel = `${prefix}reads`;
  const leaseKey = (key: string) => `${prefix}lease:${key}`;
  const header = (key: string) => JSON.stringify([replicaId, key]);
  const releasing = new Set<Promise<unknown>>();

  return {
    get usable() {
      return connection.up && connection.hearing;
    },
    async claim(keys, ttlMs) {
      if (keys.length === 0) return [];
      const left = await connection.run('live_lease', (redis) => redis.eval(CLAIM, keys.length, ...keys.map(leaseKey), replicaId, Math.ceil(ttlMs)));
      return Array.isArray(left) && left.length === keys.length ? left.map(Number) : undefined;
    },
    release(keys) {
      if (keys.length === 0) return;
      const done = connection.run('live_lease', (redis) => redis.eval(RELEASE, keys.length, ...keys.map(leaseKey), replicaId, channel, ...keys.map(header)), 'background');
      releasing.add(done);
      void done.finally(() => releasing.delete(done));
    },
    async publish(key, body) {
      return (await connection.run('live_publish', (redis) => redis.publish(channel, `${header(key)}\n${body}`))) !== undefined;
    },
    listen(onRead) {
      return connection.listen(channel, (message) => {
        const read = parse(message);
        if (read === undefined) connection.failed('live_read');
        else if (read.from !== replicaId) onRead(read.key, read.body);
      });
    },
    unreadable: () => connection.failed('live_read'),
    settle: async () => void (await Promise.allSettled([...releasing])),
  };
}

// Private: a message's header and body; `undefined` for one that is not ours to read.
function parse(message: string): { from: string; key: string; body: string } | undefined {
  const end = message.indexOf('\n');
  if (end === -1) return undefined;
  try {
    const [from, key] = JSON.parse(message.slice(0, end)) as unknown[];
    return typeof from === 'string' && typeof key === 'string' ? { from, key, body: message.slice(end + 1) } : undefined;
  } catch {
    return undefined;
  }
}
