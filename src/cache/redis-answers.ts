/**
 * The answers the replicas share, behind each one's response cache: whole answers in Redis, so
 * that an operation one replica answered is a hit on every other, with no execution there.
 *
 * Keys are the response cache's keys (already a SHA-256 of the operation, its variables and
 * `Accept`: fixed length, no client text; hashing them again would add nothing) under a prefix
 * naming the format version, the upstream and the answers' scope (app/fleet.ts). An answer keeps its wall-clock store and expiry times
 * (answer-codec.ts), and Redis drops it when its freshness ends (`PX`). A reader trusts the
 * earlier of the stored expiry and Redis's own time to live (`PTTL`), so a replica whose clock
 * runs behind never serves an answer Redis has already given up.
 *
 * An index (answer-index.ts) keeps what each answer costs Redis, within a byte budget of the
 * shared answers' own (`REDIS_RESPONSE_CACHE_MAX_BYTES`), and which answers each tag names, for a
 * purge. A write is two commands sent together, one round trip whatever the answer's tags: the
 * value (`SET … PX`) and the index's script; when the script evicted answers to stay within the
 * budget, one more to delete them. An answer costing more than a tenth of the budget is not shared.
 *
 * Like the cache's shared level, this never throws a Redis error at a caller: a failed or
 * unreadable read is a miss, a failed write is skipped. Only a purge says it could not finish
 * (`DropIncomplete`), so that its caller can say so.
 */
import type { Clock } from '../base/clock.js';
import { Cluster } from 'ioredis';
import type { Logger } from '../base/logger.js';
import type { RedisClient } from '../redis/clients.js';
import type { RedisConnection } from '../redis/connection.js';
import { decodeAnswer, encodeAnswer } from './answer-codec.js';
import { createAnswerIndex } from './answer-index.js';
import { DropIncomplete } from './cache.js';

/** A whole answer as the replicas share it, its times relative to now (clocks differ between processes). */
export interface SharedAnswer {
  body: Uint8Array;
  contentType: string;
  etag: string;
  /** Time since it was stored (by any replica), in ms. */
  ageMs: number;
  /** Time left until the first of its data stops being fresh, in ms; more than 0. */
  ttlMs: number;
  /** What it was built from (request/tags.ts). */
  tags?: readonly string[];
}

/** What the response cache needs of a level the replicas share. Nothing here rejects. */
export interface SharedAnswers {
  /** Whether a read is worth waiting for now (Redis up, or its first connection being made). */
  readonly usable: boolean;
  /** The fresh answer stored under `key`, if any and readable. */
  read(key: string): Promise<SharedAnswer | undefined>;
  /** Stores `answer` for its `ttlMs`, without waiting. */
  write(key: string, answer: SharedAnswer): void;
  /** Deletes every answer stored with one of `tags`; resolves the number deleted, or rejects with a `DropIncomplete` when Redis failed a command of it. */
  drop(tags: readonly string[]): Promise<number>;
}

/** An answer costing more than this share of the budget is not shared. */
const MAX_ANSWER_SHARE = 0.1;

export interface RedisAnswersOptions {
  connection: RedisConnection;
  /** Prefix of every key, e.g. `vg:v1:answer:3f2a9c1b04de:9d0e4b7a2c11:`; the response-cache key follows in braces. */
  prefix: string;
  /** Prefix of the index's keys (answer-index.ts), braced to one slot, e.g. `vg:v1:answers:{3f2a9c1b04de:9d0e4b7a2c11}:`. */
  indexPrefix: string;
  /** The shared answers' byte budget (`REDIS_RESPONSE_CACHE_MAX_BYTES`), as answer-index.ts counts their cost; more than 0. */
  maxBytes: number;
  /** The clock (base/clock.ts): its wall face, which replicas share, dates the entries. */
  clock: Clock;
  /** Told of values that could not be read (warn). Default: silent. */
  logger?: Logger;
}

export function createRedisAnswers(options: RedisAnswersOptions): SharedAnswers {
  const { connection, prefix, logger } = options;
  // The key is the hash tag (a Redis Cluster spreads the answers over its nodes by it).
  const redisKey = (key: string) => `${prefix}{${key}}`;
  const index = createAnswerIndex(options.indexPrefix, options.maxBytes);
  const maxCost = options.maxBytes * MAX_ANSWER_SHARE;
  const { clock } = options;

  return {
    get usable() {
      return connection.usable;
    },
    async read(key) {
      // One round trip: ioredis pipelines the two commands (same key, so same slot on a cluster).
      const found = await connection.run('answer_read', (redis) => Promise.all([redis.getBuffer(redisKey(key)), redis.pttl(redisKey(key))]));
      if (found === undefined || found[0] === null) return undefined;
      const [bytes, pttl] = found;
      const answer = decodeAnswer(bytes);
      if (answer === undefined) {
        connection.failed('answer_decode');
        logger?.warn({ key }, 'unreadable answer in redis ignored; answering afresh');
        return undefined;
      }
      const at = clock.wall();
      // -1: kept without expiry (not written by us, but readable): its own expiry rules.
      const ttlMs = Math.min(answer.expiresAt - at, pttl === -1 ? Infinity : pttl);
      if (!(ttlMs > 0)) return undefined;
      // Replicas' clocks differ a little: an answer "from the future" is simply new.
      return { body: answer.body, contentType: answer.contentType, etag: answer.etag, ageMs: Math.max(0, at - answer.storedAt), ttlMs };
    },
    write(key, answer) {
      if (!connection.usable) return;
      const at = clock.wall();
      const bytes = encodeAnswer({ ...answer, storedAt: at - answer.ageMs, expiresAt: at + answer.ttlMs });
      if (bytes === undefined) return;
      const ms = Math.ceil(answer.ttlMs);
      const tags = answer.tags ?? [];
      const cost = index.cost(key, redisKey(key), bytes.length, tags);
      if (cost > maxCost) return;
      void connection.run('answer_write', async (redis) => {
        // Sent together: one round trip (on a Cluster, to two nodes at once).
        const [, evicted] = await Promise.all([redis.set(redisKey(key), bytes, 'PX', ms), index.add(redis, key, cost, at + ms, at, tags)]);
        if (evicted.length > 0) await deleteAll(redis, evicted.map(redisKey));
      }, 'background');
    },
    async drop(tags) {
      const keys = await connection.run('answer_purge', (redis) => index.purge(redis, tags), 'patient');
      // A command Redis failed answers undefined: the answers it would have dropped may still be there.
      if (keys === undefined) throw new DropIncomplete(0);
      const deleted = await connection.run('answer_purge', (redis) => deleteAll(redis, keys.map(redisKey)), 'patient');
      if (deleted === undefined) throw new DropIncomplete(0);
      return deleted;
    },
  };
}

// Private: deletes `keys`, how many there were: one command, or one per key on a Cluster (each
// answer lives in its own slot).
async function deleteAll(redis: RedisClient, keys: readonly string[]): Promise<number> {
  if (keys.length === 0) return 0;
  if (!(redis instanceof Cluster)) return redis.del(...keys);
  const counts = await Promise.all(keys.map((key) => redis.del(key)));
  return counts.reduce((sum, count) => sum + count, 0);
}
