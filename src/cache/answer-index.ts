/**
 * The Redis index of the shared answers (redis-answers.ts): each answer's cost, expiry order and
 * tags. It gives answers, which any client can multiply, a byte budget of their own so they never
 * push out the fleet's data entries, and lets a purge by tag find what every replica stored.
 * Keys, in one slot so one script updates them: `order` (keys by expiry), `sizes` (`<bytes> <tag>…`),
 * `bytes` (the total), `tag:<tag>` (keys per tag). A write forgets a few expired answers, adds
 * its own, evicts the earliest-expiring while over budget and returns them for the caller to
 * delete. Index keys expire with the longest-lived answer, so a departed fleet leaves nothing.
 */
import type { RedisClient } from '../redis/clients.js';
import { runScript, script } from '../redis/scripts.js';

/** Redis's overhead per answer besides its value, key name and tags (measured from `used_memory`). */
const ANSWER_BYTES = 400;
/** What a place in a tag's set keeps besides a copy of the answer's key. */
const TAG_PLACE_BYTES = 72;
/** What a tag's set keeps before its first key, besides its name. */
const TAG_SET_BYTES = 240;
/** Expired answers forgotten by one write at most. */
const EXPIRED_PER_WRITE = 32;
/** How long a tag's set outlives the longest-lived answer, in ms. */
const TAG_SET_MARGIN_MS = 600_000;

// Private: shared by the scripts. KEYS: `order`, `sizes`, `bytes`; ARGV[1]: the tag sets' prefix.
const FORGET = `
local order, sizes, total, tags = KEYS[1], KEYS[2], KEYS[3], ARGV[1]
local function unset(set)
  if redis.call('EXISTS', set) == 0 then redis.call('DECRBY', total, ${TAG_SET_BYTES} + #set) end
end
local function forget(key)
  redis.call('ZREM', order, key)
  local entry = redis.call('HGET', sizes, key)
  if not entry then return end
  redis.call('HDEL', sizes, key)
  local space = string.find(entry, ' ', 1, true) or (#entry + 1)
  redis.call('DECRBY', total, tonumber(string.sub(entry, 1, space - 1)))
  for tag in string.gmatch(string.sub(entry, space + 1), '%S+') do
    if redis.call('SREM', tags .. tag, key) == 1 then unset(tags .. tag) end
  end
end
`;

/** Stores answer ARGV[2] at cost ARGV[3] until ARGV[4] (now ARGV[5]) within budget ARGV[6], tags ARGV[7…]; returns the evicted keys. */
const ADD = script(`${FORGET}
local key, bytes, expires, now, budget = ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
forget(key)
for _, gone in ipairs(redis.call('ZRANGEBYSCORE', order, '-inf', now, 'LIMIT', 0, ${EXPIRED_PER_WRITE})) do forget(gone) end
if redis.call('ZCARD', order) == 0 then redis.call('SET', total, 0) end
local named = {}
for i = 7, #ARGV do named[#named + 1] = ARGV[i] end
redis.call('ZADD', order, expires, key)
redis.call('HSET', sizes, key, bytes .. ' ' .. table.concat(named, ' '))
redis.call('INCRBY', total, bytes)
local life = math.max(1, math.ceil(tonumber(redis.call('ZRANGE', order, -1, -1, 'WITHSCORES')[2]) - now))
for _, tag in ipairs(named) do
  local set = tags .. tag
  if redis.call('SADD', set, key) == 1 and redis.call('SCARD', set) == 1 then redis.call('INCRBY', total, ${TAG_SET_BYTES} + #set) end
  redis.call('PEXPIRE', set, life + ${TAG_SET_MARGIN_MS})
end
for _, index in ipairs(KEYS) do redis.call('PEXPIRE', index, life) end
local evicted = {}
while tonumber(redis.call('GET', total)) > budget do
  local first = redis.call('ZRANGE', order, 0, 1)
  local victim = first[1] == key and first[2] or first[1]
  if not victim then break end
  forget(victim)
  evicted[#evicted + 1] = victim
end
return evicted`);

/** Forgets every answer stored with one of the tags ARGV[2…]; returns their keys. */
const PURGE = script(`${FORGET}
local found, seen = {}, {}
for i = 2, #ARGV do
  for _, key in ipairs(redis.call('SMEMBERS', tags .. ARGV[i])) do
    if not seen[key] then
      seen[key] = true
      found[#found + 1] = key
      forget(key)
    end
  end
  if redis.call('DEL', tags .. ARGV[i]) == 1 then unset(tags .. ARGV[i]) end
end
return found`);

export interface AnswerIndex {
  /** The bytes an answer costs Redis, its value `valueBytes` long under `redisKey`; the budget counts them. */
  cost(key: string, redisKey: string, valueBytes: number, tags: readonly string[]): number;
  /** Indexes answer `key` until `expiresAt` (wall ms); resolves the evicted keys for the caller to delete. */
  add(redis: RedisClient, key: string, cost: number, expiresAt: number, now: number, tags: readonly string[]): Promise<string[]>;
  /** Forgets the answers stored with any of `tags`; resolves their keys for the caller to delete. */
  purge(redis: RedisClient, tags: readonly string[]): Promise<string[]>;
}

/** The index under `prefix` (e.g. `vg:v1:answers:{3f2a9c1b04de:9d0e4b7a2c11}:`), within `maxBytes`. */
export function createAnswerIndex(prefix: string, maxBytes: number): AnswerIndex {
  const keys = [`${prefix}order`, `${prefix}sizes`, `${prefix}bytes`];
  const tags = `${prefix}tag:`;
  return {
    cost(key, redisKey, valueBytes, named) {
      let bytes = ANSWER_BYTES + redisKey.length + valueBytes + 3 * key.length;
      for (const tag of named) bytes += tag.length + 1 + key.length + TAG_PLACE_BYTES;
      return bytes;
    },
    async add(redis, key, cost, expiresAt, now, named) {
      const evicted = await runScript(redis, ADD, keys, [tags, key, cost, expiresAt, now, maxBytes, ...named]);
      return evicted as string[];
    },
    async purge(redis, named) {
      return (await runScript(redis, PURGE, keys, [tags, ...named])) as string[];
    },
  };
}
