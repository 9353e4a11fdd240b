/**
 * Cache-backed reads of the upstream, shared by all requests. Per-request DataLoaders
 * (loaders.ts) sit in front of these; the upstream api sits behind.
 *
 * Two cache layers, as in apollo's RESTDataSource, with different jobs:
 *
 * 1. Per request, DataLoader batches and de-duplicates every load a query makes (the same goods
 *    code under 40 lanes is one load) and keeps one request's view consistent while it runs.
 * 2. Across requests, the shared `Cache` (an lru-cache, bounded in entries) keeps each upstream
 *    answer for a TTL that depends on what it holds: cities change rarely, sites carry stock and
 *    change often, products in between. Its loads are de-duplicated in flight, so concurrent
 *    requests needing the same upstream call share one call. Errors are never stored. Keys name
 *    the operation and its arguments, never the token.
 *
 * Lists prime entities: a list-with-points page stores each site under `site:<code>` (with its
 * points) and its city under `siteCity:<code>`; a product list page stores `product:<goodsCode>`.
 * The site-to-city index is what lets `Site.city` work for sources that carry no city (plain
 * lists, site detail): on a miss the list-with-points pages are walked once, which fills it.
 */
import type { Cache, LoadScope } from '../cache/cache.js';
import type { ListKind, UpstreamApi } from '../upstream/api.js';
import type { CityRecord, PageResult, ProductRecord, SiteRecord, UpstreamPage } from '../upstream/records.js';
import { readAll, readRange, type CapState, type PageFetcher } from './page-range.js';

/** What a site says of its city (list-with-points only): code and name, not the numeric id. */
export interface SiteCity {
  code: string;
  name: string;
}

/** TTLs in ms per kind of data. */
export interface SourceTtls {
  citiesMs: number;
  sitesMs: number;
  productsMs: number;
}

export interface KindRecord {
  cities: CityRecord;
  sites: SiteRecord;
  sitesWithPoints: SiteRecord;
  products: ProductRecord;
}

export interface Sources {
  /** One page as the client asked for it, assembled from cached upstream pages. */
  page<K extends ListKind>(kind: K, page: number, pageSize: number, scope: LoadScope): Promise<PageResult<KindRecord[K]>>;
  /** Every city by code. */
  cities(scope: LoadScope): Promise<Map<string, CityRecord>>;
  site(code: string, scope: LoadScope): Promise<SiteRecord | null>;
  product(goodsCode: string, scope: LoadScope): Promise<ProductRecord | null>;
  /** The city of each site (null where unknown), walking list-with-points on a miss. */
  citiesOfSites(siteCodes: readonly string[], scope: LoadScope): Promise<(SiteCity | null)[]>;
}

/** Page size used when walking a whole list. */
const WALK_PAGE_SIZE = 100;

type Fetchers = { [K in ListKind]: PageFetcher<KindRecord[K]> };

export function createSources(api: UpstreamApi, cache: Cache, ttl: SourceTtls): Sources {
  // What each list's silent page-size cap turned out to be, for the life of the process.
  const caps: Record<ListKind, CapState> = {
    cities: { cap: undefined },
    sites: { cap: undefined },
    sitesWithPoints: { cap: undefined },
    products: { cap: undefined },
  };

  const primeSites = (result: UpstreamPage<SiteRecord>) => {
    for (const site of result.items.filter(isRecord)) {
      cache.set(`site:${site.code}`, site, ttl.sitesMs);
      if (site.cityCode === null) continue;
      const city: SiteCity = { code: site.cityCode, name: site.cityName ?? site.cityCode };
      cache.set(`siteCity:${site.code}`, city, ttl.citiesMs);
    }
    return result;
  };
  const primeProducts = (result: UpstreamPage<ProductRecord>) => {
    for (const product of result.items.filter(isRecord)) {
      cache.set(`product:${product.goodsCode}`, product, ttl.productsMs);
    }
    return result;
  };

  // The upstream pages of each list, through the cache, on behalf of one caller.
  const fetchers = (scope: LoadScope): Fetchers => ({
    cities: (p, s) => cache.getOrLoad(`cities:${p}:${s}`, ttl.citiesMs, (signal) => api.listCities(p, s, { signal }), scope),
    sites: (p, s) => cache.getOrLoad(`sites:${p}:${s}`, ttl.sitesMs, (signal) => api.listSites(p, s, { signal }), scope),
    sitesWithPoints: (p, s) =>
      cache.getOrLoad(
        `sitesWithPoints:${p}:${s}`,
        ttl.sitesMs,
        (signal) => api.listSitesWithPoints(p, s, { signal }).then(primeSites),
        scope,
      ),
    products: (p, s) =>
      cache.getOrLoad(
        `products:${p}:${s}`,
        ttl.productsMs,
        (signal) => api.listProducts(p, s, { signal }).then(primeProducts),
        scope,
      ),
  });

  return {
    async page(kind, page, pageSize, scope) {
      const { items, total } = await readRange(fetchers(scope)[kind], caps[kind], page, pageSize);
      return { items: items.filter(isRecord), total };
    },
    cities: (scope) =>
      cache.getOrLoad(
        'cities:byCode',
        ttl.citiesMs,
        // The pages belong to the shared load, not to whichever caller started it.
        async (signal) => {
          const all = await readAll(fetchers({ signal }).cities, caps.cities, WALK_PAGE_SIZE);
          return new Map(all.filter(isRecord).map((city) => [city.code, city]));
        },
        scope,
      ),
    site: (code, scope) =>
      cache.getOrLoad(`site:${code}`, ttl.sitesMs, (signal) => api.siteDetail(code, { signal }), scope),
    product: (goodsCode, scope) =>
      cache.getOrLoad(`product:${goodsCode}`, ttl.productsMs, (signal) => api.productDetail(goodsCode, { signal }), scope),
    async citiesOfSites(siteCodes, scope) {
      const known = () => siteCodes.map((code) => cache.peek<SiteCity>(`siteCity:${code}`) ?? null);
      const first = known();
      if (!first.includes(null)) return first;
      // One walk per sites TTL at most, however many requests miss at once.
      await cache.getOrLoad(
        'siteCity:walk',
        ttl.sitesMs,
        async (signal) => {
          await readAll(fetchers({ signal }).sitesWithPoints, caps.sitesWithPoints, WALK_PAGE_SIZE);
          return true;
        },
        scope,
      );
      return known();
    },
  };
}

// Private: drops the placeholders of broken items once positions no longer matter.
function isRecord<T>(item: T | null): item is T {
  return item !== null;
}
