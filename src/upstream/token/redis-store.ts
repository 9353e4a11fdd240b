/**
 * The fleet's one upstream token, in Redis. One key holds the token and its two deadlines as
 * JSON; a refresh runs under a Redis lock (redis/fill.ts), so N
 * replicas reaching the refresh point, or refused at once after a token expiry, make one token
 * request, and the others take the token it stored. A refused token is deleted only if it is
 * still the stored one (compare-and-delete in Lua), so a late refusal of the old token never
 * deletes its replacement.
 *
 * The key has no expiry: under the `maxmemory-policy` the gateway needs (`volatile-lru`, README
 * "Running several replicas") Redis evicts only keys that have one, and the token is read rarely
 * (at a refresh), so an LRU would take it first. Its deadlines in the value do what an expiry
 * would: a token past its expiry is no token, and the next refresh replaces it.
 *
 * Redis holds the token in clear, as the gateway's memory does: it must be as private as the
 * gateway (a password, TLS with `rediss://`, no outside access).
 */
import type { Clock } from '../../base/clock.js';
import type { RedisConnection } from '../../redis/connection.js';
import { fillOnce } from '../../redis/fill.js';
import type { StoredToken, TokenStore } from './store.js';

export interface RedisTokenStoreOptions {
  connection: RedisConnection;
  /** The token's Redis key, e.g. `vg:v1:token:<hash of token URL, client id and scope>`. */
  key: string;
  /**
   * Life of the refresh lock, and how long other replicas wait for that refresh before
   * requesting a token themselves, in ms: a token request's timeout and a margin.
   */
  waitMs: number;
  /** The token manager's clock: its wall face, which replicas share, dates the tokens. */
  clock: Clock;
}

/** Every token command is patient (connection.ts): one given up on costs the fleet a second token. */
const PATIENT = 'patient';

const COMPARE_AND_DELETE = `
local stored = redis.call('GET', KEYS[1])
if not stored then return 0 end
local ok, token = pcall(cjson.decode, stored)
if ok and type(token) == 'table' and token.value == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

export function createRedisTokenStore(options: RedisTokenStoreOptions): TokenStore {
  const { connection, key } = options;
  const { clock } = options;

  async function current(rejected: string | undefined): Promise<StoredToken | undefined> {
    const text = await connection.run('token_read', (redis) => redis.get(key), PATIENT);
    if (text === undefined || text === null) return undefined;
    const token = parseToken(text);
    if (token === undefined) connection.failed('token_decode');
    const at = clock.wall();
    const usable = token !== undefined && token.value !== rejected && (token.usedUpAt === undefined || at < token.usedUpAt)
      && (token.expiresAt === undefined || at < token.expiresAt);
    return usable ? token : undefined;
  }

  async function store(token: StoredToken): Promise<void> {
    if (token.expiresAt !== undefined && token.expiresAt <= clock.wall()) return;
    const json = JSON.stringify(token);
    await connection.run('token_write', (redis) => redis.set(key, json), PATIENT);
  }

  return {
    current,
    async refresh(request, rejected) {
      const produce = async () => {
        const token = await request();
        await store(token); // stored before the lock is released, so waiters find it
        return token;
      };
      // Alone only when Redis cannot be reached: a replica too busy to read Redis in time (a
      // paused connection) would otherwise fetch a second fleet token.
      if (!connection.reachable) return produce();
      const shared = await current(rejected);
      if (shared !== undefined) return shared;
      return fillOnce(connection, { key, waitMs: options.waitMs, operation: 'token_lock', check: () => current(rejected), produce });
    },
    invalidate(token) {
      void connection.run('token_invalidate', (redis) => redis.eval(COMPARE_AND_DELETE, 1, key, token), PATIENT);
    },
  };
}

// Private: a stored token, or `undefined` when the value is not one this version wrote.
function parseToken(text: string): StoredToken | undefined {
  try {
    const parsed = JSON.parse(text) as Partial<Record<keyof StoredToken, unknown>> | null;
    if (typeof parsed?.value !== 'string' || parsed.value === '') return undefined;
    const { usedUpAt, expiresAt } = parsed;
    if (!isTimeOrUnset(usedUpAt) || !isTimeOrUnset(expiresAt)) return undefined;
    return { value: parsed.value, usedUpAt, expiresAt };
  } catch {
    return undefined;
  }
}

function isTimeOrUnset(value: unknown): value is number | undefined {
  return value === undefined || (typeof value === 'number' && Number.isFinite(value));
}
