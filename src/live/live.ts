/**
 * The live stock as the gateway builds it: one poller over the upstream, the subscriptions over
 * it, and their metrics.
 */
import type { CatalogIndex } from '../catalog/catalog-index.js';
import type { LiveConfig } from '../config.js';
import { WALK_PAGE_SIZE, type Sources } from '../loaders/sources.js';
import type { GatewayMetrics } from '../observability/metrics.js';
import type { UpstreamApi } from '../upstream/api.js';
import { createLiveStock, type LiveStock } from './live-stock.js';
import { createSitePoller, type SitePoller } from './site-poller.js';

export interface Live extends LiveStock {
  poller: SitePoller;
}

export function createLive(config: LiveConfig, { api, sources, index, metrics }: {
  api: UpstreamApi; sources: Sources; index: CatalogIndex | undefined; metrics: GatewayMetrics;
}): Live {
  const poller = createSitePoller({
    api, intervalMs: config.pollS * 1000, pageSize: WALK_PAGE_SIZE, onRound: (round) => metrics.liveRound(round),
    knownCap: () => sources.facts('sitesWithPoints').cap,
  });
  const stock = createLiveStock({
    poller,
    limits: config,
    site: (code) => sources.site(code, {}),
    ...(index ? { indexSites: async () => (await index.sites.read()).value } : {}),
    onEvent: (field) => metrics.liveEvent(field),
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
