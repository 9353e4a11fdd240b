/**
 * How a purge reaches every replica: the one that took it publishes `{ from, tags }` and the
 * others drop their in-process copies. A replica whose subscriber is down misses it, and its
 * copies live out their freshness.
 */
import { randomUUID } from 'node:crypto';
import type { RedisConnection } from './connection.js';

export interface PurgeBus {
  /** Tells the other replicas to drop what `tags` name; false when Redis failed or is down. */
  publish(tags: readonly string[]): Promise<boolean>;
  /** Hands each purge another replica publishes to `onPurge`, until the returned function is called. */
  listen(onPurge: (tags: string[]) => void): () => void;
}

export function createPurgeBus(connection: RedisConnection, channel: string): PurgeBus {
  const id = randomUUID();
  return {
    async publish(tags) {
      const sent = await connection.run('purge_publish', (redis) => redis.publish(channel, JSON.stringify({ from: id, tags })), 'patient');
      return sent !== undefined;
    },
    listen(onPurge) {
      return connection.listen(channel, (message) => {
        const tags = tagsOf(message, id);
        if (tags !== undefined) onPurge(tags);
      });
    },
  };
}

// Private: the tags of another replica's message; undefined for our own, or for what is not one.
function tagsOf(message: string, self: string): string[] | undefined {
  try {
    const { from, tags } = JSON.parse(message) as { from?: unknown; tags?: unknown };
    if (from === self || !Array.isArray(tags) || !tags.every((tag) => typeof tag === 'string')) return undefined;
    return tags as string[];
  } catch {
    return undefined;
  }
}
