/**
 * Purge by tag: drops the data the tags name and every answer stored with them, here and in
 * Redis, then tells the other replicas. Logs the admin key's fingerprint, never the key.
 */
import type { Logger } from '../base/logger.js';
import { dropped, type Cache } from '../cache/cache.js';
import { dataOf } from '../data/tagged-data.js';
import type { GatewayMetrics } from '../observability/metrics.js';
import type { PurgeBus } from '../redis/purge-bus.js';
import { answerTagsPurged } from '../request/tags.js';
import type { ResponseCache } from './store.js';

export interface Purger {
  /** Purges `tags` on every replica; resolves the copies dropped and whether every copy went. */
  purge(tags: readonly string[], admin: string): Promise<{ purged: number; complete: boolean }>;
  close(): void;
}

export interface PurgerParts {
  cache: Pick<Cache, 'drop'>;
  responseCache: Pick<ResponseCache, 'purge'>;
  metrics: Pick<GatewayMetrics, 'purge'>;
  logger: Logger;
  bus?: PurgeBus;
}

export function createPurger({ cache, responseCache, metrics, logger, bus }: PurgerParts): Purger {
  // Data first: an answer made from the old data while the data goes is dropped with the answers.
  async function drop(tags: readonly string[], everywhere: boolean) {
    const { keys, kinds } = dataOf(tags);
    const data = await dropped(cache.drop(keys, kinds, everywhere));
    const response = await dropped(responseCache.purge(answerTagsPurged(tags), everywhere));
    return { counts: { response: response.count, data: data.count }, complete: data.complete && response.complete };
  }

  const stop = bus?.listen((tags) => {
    void drop(tags, false).then(({ counts }) => {
      metrics.purge('fleet', counts);
      logger.info({ tags, purged: counts.response + counts.data, dropped: counts }, 'purge heard from another replica');
    });
  });

  return {
    async purge(tags, admin) {
      const { counts, complete } = await drop(tags, true);
      const told = bus === undefined ? undefined : await bus.publish(tags);
      metrics.purge('request', counts);
      const purged = counts.response + counts.data;
      const everywhere = complete && told !== false;
      const fields = { admin, tags, purged, dropped: counts, ...(told === false ? { fleetTold: false } : {}) };
      if (everywhere) logger.info(fields, 'purge');
      else logger.warn({ ...fields, redisComplete: complete }, 'purge incomplete: copies may remain until their TTL');
      return { purged, complete: everywhere };
    },
    close: () => stop?.(),
  };
}
