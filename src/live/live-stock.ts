/**
 * Live stock: the `Subscription` fields over the one shared poller. `siteStock` sends the site at
 * once, then each read whose fingerprint changed; `productStock` each change of the total or the
 * lanes shown; `stockAlerts` one event per lane crossing its threshold (the first round is the
 * baseline). A failed read sends one error event and the subscription stays; the next good read
 * is sent whatever it holds, so the subscriber knows it is current again.
 */
import type { GraphQLError } from 'graphql';
import { Repeater } from 'graphql-yoga';
import type { Clock } from '../base/clock.js';
import { coded } from '../base/graph-errors.js';
import type { SitesCatalog } from '../catalog/catalog.js';
import type { ProductStockModel, StockAlertModel } from '../data/models.js';
import { isUpstreamError } from '../upstream/errors.js';
import type { SiteRecord } from '../upstream/records.js';
import { createPlaces, type LiveField, type LiveLimits, type Place } from './limits.js';
import { watchNamedSites } from './named-sites.js';
import { catalogOf, crossings, laneStocks, productStockOf, type AlertQuery, type LaneStocks, type ProductStockQuery } from './projections.js';
import { fingerprintOf, type AllSitesRead, type SitePoller, type SiteRead } from './site-poller.js';
import { ALL_SITES_KEY, siteKey } from './watch-loop.js';

export { TOO_MANY_SUBSCRIPTIONS, TOO_MANY_WATCHED_KEYS, type LiveField } from './limits.js';

/** One event of a subscription: a value, or an error (the subscription survives it, but for a `NOT_FOUND` that leaves nothing to watch). */
export type LiveEvent<T> = { value: T } | { error: GraphQLError };

export interface LiveStockOptions {
  poller: SitePoller;
  limits: LiveLimits;
  /** A site as the shared cache has it (loading it when it has not): `siteStock`'s first event. */
  site(code: string): Promise<SiteRecord | null>;
  /** The catalog index's sites, when it is on: `productStock`'s first event. */
  indexSites?(): Promise<SitesCatalog>;
  /** The clock of `updatedAt` and `at` (its wall face). */
  clock: Clock;
  /** Told of every event sent (metrics). */
  onEvent?(field: LiveField): void;
}

export interface LiveStock {
  siteStock(code: string, client: string): AsyncIterable<LiveEvent<SiteRecord>>;
  productStock(query: ProductStockQuery, client: string): AsyncIterable<LiveEvent<ProductStockModel>>;
  stockAlerts(query: AlertQuery, client: string): AsyncIterable<LiveEvent<StockAlertModel>>;
  /** Subscriptions open now, by field (admitted and not yet ended, started or not). */
  subscriptions(): Record<LiveField, number>;
  /** Ends every subscription. */
  close(): void;
}

/** What a subscription's `start` is given: how to send an event, how to end, and its place. */
type Start<T> = (send: (event: LiveEvent<T>) => void, end: () => void, place: Place) => () => void;

export function createLiveStock(options: LiveStockOptions): LiveStock {
  const { poller } = options;
  const { clock } = options;
  const now = () => new Date(clock.wall());
  const places = createPlaces(options.limits);
  // How to end each subscription whose place is held, for `close()`.
  const stops = new Map<Place, () => void>();

  // Private: a subscription's stream over `keys`; its place is taken now, with the check, and given
  // back once, by the iterator itself too (a Repeater returned before it ran never runs its executor).
  function stream<T>(field: LiveField, client: string, keys: readonly string[], start: Start<T>): AsyncIterable<LiveEvent<T>> {
    const place = places.take(field, client, keys);
    const release = () => {
      stops.delete(place);
      place.release();
    };
    const repeater = new Repeater<LiveEvent<T>>(async (push, stop) => {
      stops.set(place, () => stop());
      try {
        const send = (event: LiveEvent<T>) => {
          options.onEvent?.(field);
          push(event).catch(() => undefined); // a subscriber gone meanwhile
        };
        const unwatch = start(send, () => stop(), place);
        await stop;
        unwatch();
      } finally {
        release();
      }
    });
    const iterator: AsyncIterableIterator<LiveEvent<T>> = {
      next: () => repeater.next(),
      return: (value?: unknown) => repeater.return(value).finally(release),
      throw: (error?: unknown) => repeater.throw(error).finally(release),
      [Symbol.asyncIterator]: () => iterator,
    };
    stops.set(place, () => void repeater.return().catch(() => undefined).finally(release));
    return iterator;
  }

  return {
    siteStock: (code, client) => stream<SiteRecord>('siteStock', client, [siteKey(code)], (send, end) => {
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
          send({ error: coded('NOT_FOUND', `There is no site with code ${JSON.stringify(code)}`, { status: 200 }) });
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

    productStock: (query, client) => stream<ProductStockModel>('productStock', client, [ALL_SITES_KEY], (send) => {
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

    stockAlerts: (query, client) => {
      // Named sites without a city: their detail each round; else every site's pages.
      const named = query.siteCodes !== undefined && query.cityCode === undefined ? [...query.siteCodes] : undefined;
      return stream<StockAlertModel>('stockAlerts', client, named?.map(siteKey) ?? [ALL_SITES_KEY], (send, end, place) => {
        let previous: LaneStocks | undefined;
        let failing = false;
        const take = (sites: readonly SiteRecord[]) => {
          failing = false;
          if (previous !== undefined) for (const alert of crossings(previous, sites, query, now())) send({ value: alert });
          previous = laneStocks(sites, query);
        };
        const fail = (error: unknown) => {
          if (!failing) send({ error: liveError(error) });
          failing = true;
        };
        if (named === undefined) return poller.watchAll((read) => ('sites' in read ? take(read.sites) : fail(read.error)));
        return watchNamedSites(poller, named, place, { take, fail, notFound: (error) => send({ error }), end });
      });
    },

    subscriptions() {
      const counts: Record<LiveField, number> = { siteStock: 0, productStock: 0, stockAlerts: 0 };
      for (const place of places.open()) counts[place.field] += 1;
      return counts;
    },
    close() {
      for (const stop of [...stops.values()]) stop();
    },
  };
}

// Private: what a subscriber is told of a failed read: the upstream error's code, never its details.
function liveError(error: unknown): GraphQLError {
  const code = isUpstreamError(error) ? error.code : 'UPSTREAM_UNAVAILABLE';
  return coded(code, 'The live stock could not be read from the upstream; this subscription stays open and resumes when it answers');
}
