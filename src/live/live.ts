/**
 * The live stock as the gateway builds it: one poller (shared with the other replicas given a
 * bus), held to its share of the upstream's slots, the subscriptions over it, and their metrics.
 */
import type { Clock } from '../base/clock.js';
import type { CatalogIndex } from '../catalog/catalog-index.js';
import type { LiveConfig } from '../base/config/config.js';
import type { Sources } from '../data/sources.js';
import type { GatewayMetrics } from '../observability/metrics.js';
import type { LiveBus } from '../redis/live-bus.js';
import type { UpstreamApi } from '../upstream/api.js';
import { LISTS } from '../upstream/operations.js';
import { createFleetPoller } from './fleet-poller.js';
import { createLiveStock, type LiveStock } from './live-stock.js';
import { limitApi, pollConcurrency } from './poll-share.js';
import { createSitePoller, type PollRound, type SitePoller } from './site-poller.js';

export interface Live extends LiveStock {
  poller: SitePoller;
}

export function createLive(config: LiveConfig, { api, sources, index, metrics, bus, upstreamMaxConcurrency, clock }: {
  api: UpstreamApi; sources: Sources; index: CatalogIndex | undefined; metrics: GatewayMetrics;
  /** The clock of the events' times (its wall face). */
  clock: Clock;
  /** With `REDIS_URL`: the replicas share the polling through it. */
  bus?: LiveBus;
  /** The upstream client's slots in all; the polls may hold a quarter of them. */
  upstreamMaxConcurrency: number;
}): Live {
  const options = {
    api: limitApi({
      siteDetail: (code) => api.detail('site', code),
      listSitesWithPoints: (page, pageSize) => api.list('sitesWithPoints', page, pageSize),
    }, pollConcurrency(upstreamMaxConcurrency)),
    intervalMs: config.pollS * 1000, pageSize: LISTS.sitesWithPoints.walkPageSize, onRound: (round: PollRound) => metrics.liveRound(round),
    knownCap: () => sources.facts('sitesWithPoints').cap,
    knownTotal: () => sources.facts('sitesWithPoints').total ?? sources.facts('sites').total,
  };
  const poller = bus ? createFleetPoller({ ...options, bus }) : createSitePoller(options);
  const stock = createLiveStock({
    poller,
    limits: config,
    site: (code) => sources.site(code, {}),
    ...(index ? { indexSites: async () => (await index.sites.read()).value } : {}),
    onEvent: (field) => metrics.liveEvent(field),
    clock,
  });
  return {
    ...stock,
    poller,
    close() {
      stock.close();
      poller.close();
    },
  };
}
