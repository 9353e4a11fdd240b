/**
 * The level the replicas share, behind each one's LRU level: entries in Redis, read and written by every replica.
 *
 * Keys are the cache's keys under a prefix that carries the format version and the upstream
 * (`vg:v1:cache:<upstream hash>:{site:S000001}`), so a new version never reads old shapes and two
 * upstreams never mix. The cache key is the hash tag: a Redis Cluster spreads the entries over its
 * nodes, and keeps each with its fill lock (`…}:lock`). An entry keeps its wall-clock load time and TTL (entry-codec.ts), and
 * Redis drops it once its TTL and the longer stale window have passed: every entry has an expiry,
 * so that a full Redis evicts entries (`volatile-lru`), never the token or a lock, which have none. A fill (a load nobody in
 * the fleet has) runs once across the replicas (redis/fill.ts). Whatever Redis does, this level
 * never throws a Redis error at a caller: a failed read is a miss, a failed write is skipped.
 * A purge deletes entries by key, and those of a kind by a SCAN of every primary.
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
  /** The clock (base/clock.ts): its wall face, which replicas share, dates the entries. */
  clock: Clock;
  /** Told of values that could not be read (warn). Default: silent. */
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
    // Replicas' clocks differ a little: an entry "from the future" is simply new.
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

  // Every key of `kind` on one node (a Cluster's primaries each hold some): `<prefix>{<kind>:…}`.
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
      // One command per key: on a Cluster each entry lives in its own slot.
      const counts = await Promise.all(all.map((key) => connection.run('cache_purge', (redis) => redis.del(key), 'patient')));
      const count = counts.reduce<number>((sum, deleted) => sum + (deleted ?? 0), 0);
      // A command Redis failed answers undefined: what it would have dropped may still be there.
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
