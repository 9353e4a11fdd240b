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
import type { Cache } from '../cache/cache.js';
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
  page<K extends ListKind>(kind: K, page: number, pageSize: number): Promise<PageResult<KindRecord[K]>>;
  /** Every city by code. */
  cities(): Promise<Map<string, CityRecord>>;
  site(code: string): Promise<SiteRecord | null>;
  product(goodsCode: string): Promise<ProductRecord | null>;
  /** The city of each site (null where unknown), walking list-with-points on a miss. */
  citiesOfSites(siteCodes: readonly string[]): Promise<(SiteCity | null)[]>;
}

/** Page size used when walking a whole list. */
const WALK_PAGE_SIZE = 100;

export function createSources(api: UpstreamApi, cache: Cache, ttl: SourceTtls): Sources {
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

  const fetchers: { [K in ListKind]: PageFetcher<KindRecord[K]> } = {
    cities: (p, s) => cache.getOrLoad(`cities:${p}:${s}`, ttl.citiesMs, () => api.listCities(p, s)),
    sites: (p, s) => cache.getOrLoad(`sites:${p}:${s}`, ttl.sitesMs, () => api.listSites(p, s)),
    sitesWithPoints: (p, s) =>
      cache.getOrLoad(`sitesWithPoints:${p}:${s}`, ttl.sitesMs, () => api.listSitesWithPoints(p, s).then(primeSites)),
    products: (p, s) =>
      cache.getOrLoad(`products:${p}:${s}`, ttl.productsMs, () => api.listProducts(p, s).then(primeProducts)),
  };

  return {
    async page(kind, page, pageSize) {
      const { items, total } = await readRange(fetchers[kind], caps[kind], page, pageSize);
      return { items: items.filter(isRecord), total };
    },
    cities: () =>
      cache.getOrLoad('cities:byCode', ttl.citiesMs, async () => {
        const all = await readAll(fetchers.cities, caps.cities, WALK_PAGE_SIZE);
        return new Map(all.filter(isRecord).map((city) => [city.code, city]));
      }),
    site: (code) => cache.getOrLoad(`site:${code}`, ttl.sitesMs, () => api.siteDetail(code)),
    product: (goodsCode) =>
      cache.getOrLoad(`product:${goodsCode}`, ttl.productsMs, () => api.productDetail(goodsCode)),
    async citiesOfSites(siteCodes) {
      const known = () => siteCodes.map((code) => cache.peek<SiteCity>(`siteCity:${code}`) ?? null);
      const first = known();
      if (!first.includes(null)) return first;
      // One walk per sites TTL at most, however many requests miss at once.
      await cache.getOrLoad('siteCity:walk', ttl.sitesMs, async () => {
        await readAll(fetchers.sitesWithPoints, caps.sitesWithPoints, WALK_PAGE_SIZE);
        return true;
      });
      return known();
    },
  };
}

// Private: drops the placeholders of broken items once positions no longer matter.
function isRecord<T>(item: T | null): item is T {
  return item !== null;
}
