/**
 * The fleet's one upstream token in Redis, as JSON with its deadlines. A refresh runs under a
 * lock (redis/fill.ts), so the fleet makes one token request; a refused token is deleted only
 * if still stored, so a late refusal never deletes its replacement. The key has no expiry, so
 * `volatile-lru` never evicts it. The token is in clear: Redis must be as private as the gateway.
 */
import type { Clock } from '../../base/clock.js';
import type { RedisConnection } from '../../redis/connection.js';
import { fillOnce } from '../../redis/fill.js';
import type { StoredToken, TokenStore } from './store.js';

export interface RedisTokenStoreOptions {
  connection: RedisConnection;
  /** The token's Redis key. */
  key: string;
  /** Life of the refresh lock, in ms: a token request's timeout and a margin. */
  waitMs: number;
  /** Its wall face, which replicas share, dates the tokens. */
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
      // Alone only when Redis is unreachable, not merely paused: else a busy replica fetches a second token.
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
