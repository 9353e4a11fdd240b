/**
 * The catalog index: the whole catalog in memory, to answer what the upstream has no operation
 * for (nearest sites, stock by product, a city's sites, search). Sites and products are each
 * rebuilt when queries find them old; a walk primes the entity caches for the graph's fields.
 */
import type { Clock } from '../base/clock.js';
import { codeOf } from '../base/errors.js';
import type { Logger } from '../base/logger.js';
import type { Sources } from '../data/sources.js';
import { buildProductsCatalog, buildSitesCatalog, type ProductsCatalog, type SitesCatalog } from './catalog.js';
import { createRefreshing, type Refreshing } from './refreshing.js';

export interface CatalogIndexOptions {
  /** Refresh interval of sites and stock, in ms (`INDEX_REFRESH_S`, else the sites TTL). */
  sitesRefreshMs: number;
  /** Refresh interval of products, in ms (`INDEX_REFRESH_S`, else the products TTL). */
  productsRefreshMs: number;
  /** How long past its interval a part outlives failing refreshes, in ms. */
  staleIfErrorMs: number;
  clock: Clock;
  logger: Logger;
  /** Told of each build's end (metrics). */
  onBuilt?(part: 'sites' | 'products', outcome: 'ok' | 'error', durationMs: number): void;
  /** Runs each walk of `part` in a trace span. Default: no tracing. */
  traceWalk?<R>(part: 'sites' | 'products', walk: () => Promise<R>): Promise<R>;
}

export interface CatalogIndex {
  sites: Refreshing<SitesCatalog>;
  products: Refreshing<ProductsCatalog>;
  /** Builds both parts now, in the background (`INDEX_WARM_ON_START`). */
  warm(): void;
  /** Age of each part held now, in ms (metrics). */
  ages(): Record<'sites' | 'products', number | undefined>;
}

export function createCatalogIndex(sources: Sources, options: CatalogIndexOptions): CatalogIndex {
  const onError = (part: string) => (error: unknown) =>
    options.logger.warn({ part, code: codeOf(error) }, 'catalog index refresh failed');
  const part = <T>(name: 'sites' | 'products', refreshMs: number, build: () => Promise<{ value: T; ageMs: number; failed: boolean }>) =>
    createRefreshing<T>({
      refreshMs,
      staleIfErrorMs: options.staleIfErrorMs,
      clock: options.clock,
      onError: onError(name),
      onBuilt: (outcome, durationMs) => options.onBuilt?.(name, outcome, durationMs),
      ...(options.traceWalk ? { traced: (walk) => options.traceWalk!(name, walk) } : {}),
      build,
    });

  const sites = part('sites', options.sitesRefreshMs, async () => {
    const { records, ageMs, failed } = await sources.snapshot('sitesWithPoints', options.sitesRefreshMs);
    return { value: built(records, buildSitesCatalog), ageMs, failed };
  });
  const products = part('products', options.productsRefreshMs, async () => {
    const { records, ageMs, failed } = await sources.snapshot('products', options.productsRefreshMs);
    return { value: built(records, buildProductsCatalog), ageMs, failed };
  });
  return {
    sites,
    products,
    warm() {
      sites.warm();
      products.warm();
    },
    ages: () => ({ sites: sites.ageMs(), products: products.ageMs() }),
  };
}

// Private: the same records (a cached walk served again) make the same catalog, built once.
const catalogs = new WeakMap<object, unknown>();
function built<R extends object, C>(records: R, build: (records: R) => C): C {
  let catalog = catalogs.get(records) as C | undefined;
  if (catalog === undefined) {
    catalog = build(records);
    catalogs.set(records, catalog);
  }
  return catalog;
}
