/** Lua scripts run by SHA-1 (`EVALSHA`), sent whole (`EVAL`) only to a server that does not know them yet. */
import { createHash } from 'node:crypto';
import type { RedisClient } from './clients.js';

/** A script's source and its SHA-1, as Redis names it. */
export interface Script {
  readonly source: string;
  readonly sha: string;
}

export function script(source: string): Script {
  return { source, sha: createHash('sha1').update(source).digest('hex') };
}

/** Runs `script` on `keys` (of one slot, on a Cluster) and `args`: its reply, or Redis's error. */
export async function runScript(redis: RedisClient, { source, sha }: Script, keys: readonly string[], args: ReadonlyArray<string | number>): Promise<unknown> {
  try {
    return await redis.evalsha(sha, keys.length, ...keys, ...args);
  } catch (error) {
    if (!(error as Error).message.startsWith('NOSCRIPT')) throw error;
    return redis.eval(source, keys.length, ...keys, ...args);
  }
}
