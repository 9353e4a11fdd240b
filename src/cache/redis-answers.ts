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
 * Each answer's tags (request/tags.ts) are kept in a sorted set per tag (`<tag prefix>{<tag>}`,
 * its members the answers' keys scored by their expiry, kept as long as its longest-lived answer),
 * so that a purge by tag finds, on any replica, the answers every replica stored. Each write to a
 * tag's set also drops its expired members (one script, one round trip): the set of a tag that
 * every answer carries (`cities`) would otherwise grow for ever.
 *
 * Like the cache's shared level, this never throws a Redis error at a caller: a failed or
 * unreadable read is a miss, a failed write is skipped. Only a purge says it could not finish
 * (`DropIncomplete`), so that its caller can say so.
 */
import { systemClock } from '../base/clock.js';
import type { Logger } from '../base/logger.js';
import type { RedisConnection } from '../redis/connection.js';
import { decodeAnswer, encodeAnswer } from './answer-codec.js';
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

/**
 * Adds an answer's key (ARGV[1]) to a tag's set, scored by its expiry (ARGV[2], wall ms), drops the
 * members expired by ARGV[3] (now), and keeps the set at least ARGV[4] ms (its longest-lived answer).
 */
const TAG = `
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[3])
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[4]) then redis.call('PEXPIRE', KEYS[1], ARGV[4]) end
return 1`;

export interface RedisAnswersOptions {
  connection: RedisConnection;
  /** Prefix of every key, e.g. `vg:v1:answer:3f2a9c1b04de:9d0e4b7a2c11:`; the response-cache key follows in braces. */
  prefix: string;
  /** Prefix of the sets of answers per tag, e.g. `vg:v1:tag:3f2a9c1b04de:9d0e4b7a2c11:`; the tag follows in braces. */
  tagPrefix: string;
  /** The wall clock replicas share, in ms since the epoch (base/clock.ts). Default `systemClock.wall`. */
  now?: () => number;
  /** Told of values that could not be read (warn). Default: silent. */
  logger?: Logger;
}

export function createRedisAnswers(options: RedisAnswersOptions): SharedAnswers {
  const { connection, prefix, logger } = options;
  // The key is the hash tag (a Redis Cluster spreads the answers over its nodes by it).
  const redisKey = (key: string) => `${prefix}{${key}}`;
  const tagKey = (tag: string) => `${options.tagPrefix}{${tag}}`;
  const now = options.now ?? systemClock.wall;

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
      const at = now();
      // -1: kept without expiry (not written by us, but readable): its own expiry rules.
      const ttlMs = Math.min(answer.expiresAt - at, pttl === -1 ? Infinity : pttl);
      if (!(ttlMs > 0)) return undefined;
      // Replicas' clocks differ a little: an answer "from the future" is simply new.
      return { body: answer.body, contentType: answer.contentType, etag: answer.etag, ageMs: Math.max(0, at - answer.storedAt), ttlMs };
    },
    write(key, answer) {
      if (!connection.usable) return;
      const at = now();
      const bytes = encodeAnswer({ ...answer, storedAt: at - answer.ageMs, expiresAt: at + answer.ttlMs });
      if (bytes === undefined) return;
      const ms = Math.ceil(answer.ttlMs);
      void connection.run('answer_write', (redis) => redis.set(redisKey(key), bytes, 'PX', ms), 'background');
      for (const tag of answer.tags ?? []) {
        void connection.run('answer_write', (redis) => redis.eval(TAG, 1, tagKey(tag), key, at + ms, at, ms), 'background');
      }
    },
    async drop(tags) {
      let deleted = 0;
      let complete = true;
      for (const tag of tags) {
        const keys = await connection.run('answer_purge', (redis) => redis.zrangebyscore(tagKey(tag), now(), '+inf'), 'patient');
        // One command per key: on a Cluster each answer lives in its own slot.
        const counts = await Promise.all((keys ?? []).map((key) => connection.run('answer_purge', (redis) => redis.del(redisKey(key)), 'patient')));
        deleted += counts.reduce<number>((sum, count) => sum + (count ?? 0), 0);
        const cleared = await connection.run('answer_purge', (redis) => redis.del(tagKey(tag)), 'patient');
        // A command Redis failed answers undefined: the answers it would have dropped may still be there.
        if (keys === undefined || counts.includes(undefined) || cleared === undefined) complete = false;
      }
      if (!complete) throw new DropIncomplete(deleted);
      return deleted;
    },
  };
}
