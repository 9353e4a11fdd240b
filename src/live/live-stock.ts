/**
 * Live stock: the `Subscription` fields over the one shared poller (site-poller.ts).
 *
 * - `siteStock`: the site at once (from the shared cache), then every read whose fingerprint
 *   differs from the last one this subscriber was sent.
 * - `productStock`: from every site (the page plan): at once from the catalog index when it is
 *   on, else from the first round; then on every change of the total or the lanes shown.
 * - `stockAlerts`: compares each lane with the previous round (the first round after the
 *   subscription starts is the baseline) and sends one event per crossing.
 *
 * A failed read sends one error event (`extensions.code`) and the subscription stays; the next
 * good read is sent whatever it holds, so the subscriber knows it is current again. Limits:
 * `LIVE_MAX_SUBSCRIPTIONS` in all and `LIVE_MAX_SUBSCRIPTIONS_PER_CLIENT` per client, refused
 * with `TOO_MANY_SUBSCRIPTIONS`. `close()` ends every subscription (the transports tell their
 * clients that it completed), as SIGTERM does.
 */
import { GraphQLError } from 'graphql';
import { Repeater } from 'graphql-yoga';
import type { SitesCatalog } from '../catalog/catalog.js';
import type { LiveConfig } from '../config.js';
import type { ProductStockModel, StockAlertModel } from '../resolvers/models.js';
import { isUpstreamError } from '../upstream/errors.js';
import type { SiteRecord } from '../upstream/records.js';
import { catalogOf, crossings, laneStocks, productStockOf, type AlertQuery, type LaneStocks, type ProductStockQuery } from './projections.js';
import { fingerprintOf, type AllSitesRead, type SitePoller, type SiteRead } from './site-poller.js';

/** The live subscription fields. */
export type LiveField = 'siteStock' | 'productStock' | 'stockAlerts';

/** One event of a subscription: a value, or an error (the subscription survives it, but for `NOT_FOUND`). */
export type LiveEvent<T> = { value: T } | { error: GraphQLError };

export const TOO_MANY_SUBSCRIPTIONS = 'TOO_MANY_SUBSCRIPTIONS';

export interface LiveStockOptions {
  poller: SitePoller;
  limits: Pick<LiveConfig, 'maxSubscriptions' | 'maxSubscriptionsPerClient'>;
  /** A site as the shared cache has it (loading it when it has not): `siteStock`'s first event. */
  site(code: string): Promise<SiteRecord | null>;
  /** The catalog index's sites, when it is on: `productStock`'s first event. */
  indexSites?(): Promise<SitesCatalog>;
  /** Wall clock for `updatedAt` and `at`. */
  now?(): Date;
  /** Told of every event sent (metrics). */
  onEvent?(field: LiveField): void;
}

export interface LiveStock {
  siteStock(code: string, client: string): AsyncIterable<LiveEvent<SiteRecord>>;
  productStock(query: ProductStockQuery, client: string): AsyncIterable<LiveEvent<ProductStockModel>>;
  stockAlerts(query: AlertQuery, client: string): AsyncIterable<LiveEvent<StockAlertModel>>;
  /** Subscriptions open now, by field. */
  subscriptions(): Record<LiveField, number>;
  /** Ends every subscription. */
  close(): void;
}

export function createLiveStock(options: LiveStockOptions): LiveStock {
  const { poller, limits } = options;
  const now = options.now ?? (() => new Date());
  const open = new Set<{ field: LiveField; client: string; stop: () => void }>();
  const perClient = new Map<string, number>();

  // Private: a subscription's stream; `start` begins watching and returns what stops it. Checked
  // against the limits when the subscription is asked for, so a refusal costs nothing.
  function stream<T>(field: LiveField, client: string, start: (send: (event: LiveEvent<T>) => void, end: () => void) => () => void): AsyncIterable<LiveEvent<T>> {
    if (open.size >= limits.maxSubscriptions) throw tooMany(`${limits.maxSubscriptions} live subscriptions are open on this gateway, its limit`);
    if ((perClient.get(client) ?? 0) >= limits.maxSubscriptionsPerClient) {
      throw tooMany(`this client holds ${limits.maxSubscriptionsPerClient} live subscriptions, the most one client may`);
    }
    // Counted once the stream runs: a stream nobody reads (its client left first) holds nothing.
    return new Repeater<LiveEvent<T>>(async (push, stop) => {
      const entry = { field, client, stop: () => stop() };
      open.add(entry);
      perClient.set(client, (perClient.get(client) ?? 0) + 1);
      const send = (event: LiveEvent<T>) => {
        options.onEvent?.(field);
        push(event).catch(() => undefined); // a subscriber gone meanwhile
      };
      const unwatch = start(send, () => stop());
      await stop;
      unwatch();
      open.delete(entry);
      const left = (perClient.get(client) ?? 1) - 1;
      if (left === 0) perClient.delete(client);
      else perClient.set(client, left);
    });
  }

  return {
    siteStock: (code, client) => stream<SiteRecord>('siteStock', client, (send, end) => {
      let last: string | undefined;
      let failing = false;
      const take = (read: SiteRead) => {
        if ('error' in read) {
          if (!failing) send({ error: liveError(read.error) });
          failing = true;
          last = undefined;
          return;
        }
        failing = false;
        if (read.site === null) {
          send({ error: new GraphQLError(`There is no site with code ${JSON.stringify(code)}`, { extensions: { code: 'NOT_FOUND' } }) });
          end();
        } else if (read.fingerprint !== last) {
          last = read.fingerprint;
          send({ value: read.site });
        }
      };
      const unwatch = poller.watchSite(code, take);
      // The first event at once, unless a round was quicker.
      options.site(code).then(
        (site) => last === undefined && !failing && take({ site, fingerprint: fingerprintOf(site) }),
        (error: unknown) => last === undefined && take({ error }),
      );
      return unwatch;
    }),

    productStock: (query, client) => stream<ProductStockModel>('productStock', client, (send) => {
      let last: string | undefined;
      let failing = false;
      const take = (catalog: SitesCatalog) => {
        failing = false;
        const { value, fingerprint } = productStockOf(catalog, query, now());
        if (fingerprint === last) return;
        last = fingerprint;
        send({ value });
      };
      const unwatch = poller.watchAll((read: AllSitesRead) => {
        if ('sites' in read) return take(catalogOf(read.sites));
        if (!failing) send({ error: liveError(read.error) });
        failing = true;
        last = undefined;
      });
      options.indexSites?.().then((catalog) => last === undefined && !failing && take(catalog), () => undefined);
      return unwatch;
    }),

    stockAlerts: (query, client) => stream<StockAlertModel>('stockAlerts', client, (send) => {
      let previous: LaneStocks | undefined;
      let failing = false;
      const take = (sites: readonly (SiteRecord | null)[]) => {
        failing = false;
        if (previous !== undefined) for (const alert of crossings(previous, sites, query, now())) send({ value: alert });
        previous = laneStocks(sites, query);
      };
      const fail = (error: unknown) => {
        if (!failing) send({ error: liveError(error) });
        failing = true;
      };
      // Named sites without a city: their detail each round; else every site's pages.
      if (query.siteCodes === undefined || query.cityCode !== undefined) {
        return poller.watchAll((read) => ('sites' in read ? take(read.sites) : fail(read.error)));
      }
      return watchEach([...query.siteCodes], take, fail);
    }),

    subscriptions() {
      const counts: Record<LiveField, number> = { siteStock: 0, productStock: 0, stockAlerts: 0 };
      for (const entry of open) counts[entry.field] += 1;
      return counts;
    },
    close() {
      for (const entry of [...open]) entry.stop();
    },
  };

  // Private: the named sites' reads of one round, together, once every one of them has arrived.
  function watchEach(codes: string[], take: (sites: (SiteRecord | null)[]) => void, fail: (error: unknown) => void): () => void {
    let round = new Map<string, SiteRead>();
    const unwatches = codes.map((code) => poller.watchSite(code, (read) => {
      round.set(code, read);
      if (round.size < codes.length) return;
      const reads = codes.map((c) => round.get(c)!);
      round = new Map();
      const failed = reads.find((r): r is { error: unknown } => 'error' in r);
      if (failed) fail(failed.error);
      else take(reads.map((r) => (r as { site: SiteRecord | null }).site));
    }));
    return () => unwatches.forEach((unwatch) => unwatch());
  }
}

function tooMany(why: string): GraphQLError {
  return new GraphQLError(`Too many live subscriptions: ${why}; end one first`, { extensions: { code: TOO_MANY_SUBSCRIPTIONS } });
}

// Private: what a subscriber is told of a failed read: the upstream error's code, never its details.
function liveError(error: unknown): GraphQLError {
  const code = isUpstreamError(error) ? error.code : 'UPSTREAM_UNAVAILABLE';
  return new GraphQLError('The live stock could not be read from the upstream; this subscription stays open and resumes when it answers', {
    extensions: { code },
  });
}
