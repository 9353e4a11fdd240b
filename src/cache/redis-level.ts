/**
 * The level the replicas share: entries in Redis, the cache key as hash tag (an entry and its
 * fill lock share a slot). Every entry expires, so a full Redis (`volatile-lru`) evicts entries,
 * never the token or a lock (redis/fill.ts). Redis errors never reach a caller.
 */
import type { Clock } from '../base/clock.js';
import type { Logger } from '../base/logger.js';
import { Cluster } from 'ioredis';
import type { RedisClient } from '../redis/clients.js';
import type { RedisConnection } from '../redis/connection.js';
import { fillOnce, lockHeld } from '../redis/fill.js';
import { DropIncomplete } from './cache.js';
import { decodeEntry, encodeEntry } from './entry-codec.js';
import type { SharedEntry, SharedLevel } from './lru-cache.js';

export interface RedisLevelOptions {
  connection: RedisConnection;
  /** Prefix of every key, format version and upstream included, e.g. `vg:v1:cache:3f2a9c1b04de:`; the cache key follows in braces. */
  prefix: string;
  /** How long an entry stays in Redis past its TTL (the longer stale window), in ms. */
  keepPastTtlMs: number;
  /** Life of a fill lock, and how long other replicas wait for that fill before loading themselves, in ms. */
  fillWaitMs: number;
  /** Its wall face, which replicas share, dates the entries. */
  clock: Clock;
  /** Told of unreadable values. Default: silent. */
  logger?: Logger;
}

export function createRedisLevel(options: RedisLevelOptions): SharedLevel {
  const { connection, prefix } = options;
  const redisKey = (key: string) => `${prefix}{${key}}`;
  const { clock } = options;

  async function read(key: string): Promise<SharedEntry | undefined> {
    const bytes = await connection.run('cache_read', (redis) => redis.getBuffer(redisKey(key)));
    if (bytes === undefined || bytes === null) return undefined;
    const entry = decodeEntry(bytes);
    if (entry === undefined) {
      connection.failed('cache_decode');
      options.logger?.warn({ key }, 'unreadable value in redis ignored; loading afresh');
      return undefined;
    }
    return { value: entry.value, ageMs: Math.max(0, clock.wall() - entry.loadedAt), ttlMs: entry.ttlMs };
  }

  async function write(key: string, value: unknown, ttlMs: number): Promise<void> {
    if (!connection.usable) return;
    let bytes: Buffer;
    try {
      bytes = encodeEntry({ value, loadedAt: clock.wall(), ttlMs });
    } catch {
      connection.failed('cache_encode'); // not JSON data: kept in this process only
      return;
    }
    await connection.run('cache_write', (redis) => redis.set(redisKey(key), bytes, 'PX', Math.ceil(ttlMs + options.keepPastTtlMs)), 'background');
  }

  const fresh = async (key: string) => {
    const entry = await read(key);
    return entry !== undefined && entry.ageMs <= entry.ttlMs ? entry : undefined;
  };

  // Private: every key of `kind`, on each of a Cluster's primaries.
  async function keysOfKind(redis: RedisClient, kind: string): Promise<string[]> {
    const nodes = redis instanceof Cluster ? redis.nodes('master') : [redis];
    const found: string[] = [];
    for (const node of nodes) {
      for await (const batch of node.scanStream({ match: `${prefix}{${kind}:*`, count: 500 })) {
        // A fill's lock is its holder's to release, not data.
        found.push(...(batch as string[]).filter((key) => !key.endsWith('}:lock')));
      }
    }
    return found;
  }

  return {
    read,
    async drop(keys, kinds) {
      const scanned = await Promise.all(kinds.map((kind) => connection.run('cache_purge', (redis) => keysOfKind(redis, kind), 'patient')));
      const all = [...keys.map(redisKey), ...scanned.flatMap((found) => found ?? [])];
      const counts = await Promise.all(all.map((key) => connection.run('cache_purge', (redis) => redis.del(key), 'patient')));
      const count = counts.reduce<number>((sum, deleted) => sum + (deleted ?? 0), 0);
      // A failed command answers undefined.
      if (scanned.includes(undefined) || counts.includes(undefined)) throw new DropIncomplete(count);
      return count;
    },
    write(key, value, ttlMs) {
      void write(key, value, ttlMs);
    },
    async filling(key) {
      return (await lockHeld(connection, redisKey(key), 'cache_read')) === true;
    },
    fill(key, ttlMs, load, signal) {
      const produce = async () => {
        const value = await load(signal);
        await write(key, value, ttlMs); // stored before the lock is released, so waiters find it
        return { value, ageMs: 0, ttlMs };
      };
      if (!connection.usable) return produce();
      return fillOnce(connection, {
        key: redisKey(key),
        waitMs: options.fillWaitMs,
        operation: 'cache_lock',
        check: () => fresh(key),
        produce,
        signal,
      });
    },
  };
}
