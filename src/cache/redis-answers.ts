/**
 * Whole answers shared in Redis, so what one replica answered is a hit on every other. A reader
 * trusts the earlier of the stored expiry and `PTTL`, so a replica whose clock runs behind never
 * serves what Redis gave up. A write sends the value and the index's script (answer-index.ts)
 * together. Redis errors never reach a caller; only a purge reports `DropIncomplete`.
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
  /** Time left until it stops being fresh, in ms; more than 0. */
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
  /** Deletes every answer stored with one of `tags`; resolves how many, or rejects with `DropIncomplete`. */
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
  /** The shared answers' byte budget, as answer-index.ts counts cost; more than 0. */
  maxBytes: number;
  /** Its wall face, which replicas share, dates the entries. */
  clock: Clock;
  logger?: Logger;
}

export function createRedisAnswers(options: RedisAnswersOptions): SharedAnswers {
  const { connection, prefix, logger } = options;
  const redisKey = (key: string) => `${prefix}{${key}}`;
  const index = createAnswerIndex(options.indexPrefix, options.maxBytes);
  const maxCost = options.maxBytes * MAX_ANSWER_SHARE;
  const { clock } = options;

  return {
    get usable() {
      return connection.usable;
    },
    async read(key) {
      // One round trip: ioredis pipelines the two commands.
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
      // -1: no Redis expiry; the stored one rules.
      const ttlMs = Math.min(answer.expiresAt - at, pttl === -1 ? Infinity : pttl);
      if (!(ttlMs > 0)) return undefined;
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
        const [, evicted] = await Promise.all([redis.set(redisKey(key), bytes, 'PX', ms), index.add(redis, key, cost, at + ms, at, tags)]);
        if (evicted.length > 0) await deleteAll(redis, evicted.map(redisKey));
      }, 'background');
    },
    async drop(tags) {
      const keys = await connection.run('answer_purge', (redis) => index.purge(redis, tags), 'patient');
      // A failed command answers undefined.
      if (keys === undefined) throw new DropIncomplete(0);
      const deleted = await connection.run('answer_purge', (redis) => deleteAll(redis, keys.map(redisKey)), 'patient');
      if (deleted === undefined) throw new DropIncomplete(0);
      return deleted;
    },
  };
}

// Private: deletes `keys`; one command per key on a Cluster, where each lives in its own slot.
async function deleteAll(redis: RedisClient, keys: readonly string[]): Promise<number> {
  if (keys.length === 0) return 0;
  if (!(redis instanceof Cluster)) return redis.del(...keys);
  const counts = await Promise.all(keys.map((key) => redis.del(key)));
  return counts.reduce((sum, count) => sum + count, 0);
}
