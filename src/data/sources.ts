/**
 * Cache-backed reads of the upstream, shared by all requests; per-request DataLoaders (loaders.ts)
 * sit in front. Two cache layers with different jobs: DataLoader batches and de-duplicates one
 * request's loads; the shared `Cache` keeps each upstream answer for its data's TTL, shares loads
 * in flight, never stores errors, and keys on the operation and arguments, never the token.
 *
 * Lists prime the entities they carry, and products take the cheaper road: walking the list when
 * that costs fewer calls than the details, and waiting for a walk in flight rather than asking.
 */
import type { Clock } from '../base/clock.js';
import type { Cache, LoadScope } from '../cache/cache.js';
import type { UpstreamApi } from '../upstream/api.js';
import { DETAILS, LISTS, type ChildListOperation, type DetailKind, type DetailRecord, type Freshness, type ListKind, type ListRecord } from '../upstream/operations.js';
import type { CityRecord, PageResult, ProductRecord, SiteRecord, UpstreamPage } from '../upstream/records.js';
import { readAll, readRange, type CapState, type PageFetcher } from './page-range.js';

/** What a site says of its city: code and name, not the numeric id. */
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

/** The record of each list. */
export type KindRecord = { [K in ListKind]: ListRecord<K> };

/** Every city by code, built from a walk of the city list. */
export const CITIES_BY_CODE_KEY = 'cities:byCode';
/** The city of a site, primed by list-with-points. */
export const siteCityKey = (code: string) => `siteCity:${code}`;

/** A caller's scope, plus the charge for each upstream call made on its behalf (its budget). */
export interface SourceScope extends LoadScope {
  /** Called before each upstream call this caller starts; throws to refuse it. */
  chargeUpstreamCall?(): void;
  /** Time left before the caller's deadline, in ms; none: no deadline. */
  timeLeftMs?(): number;
  /** Names data the caller's answer is built from (its tags). */
  tag?(kind: string, code?: string): void;
}

/** What the gateway has learnt of a list, for planning (see the upstream budget). */
export interface ListFacts {
  cap: number | undefined;
  total: number | undefined;
}

export interface Sources {
  /** One page as the client asked for it, assembled from cached upstream pages. */
  page<K extends ListKind>(kind: K, page: number, pageSize: number, scope: SourceScope): Promise<PageResult<KindRecord[K]>>;
  cities(scope: SourceScope): Promise<Map<string, CityRecord>>;
  site(code: string, scope: SourceScope): Promise<SiteRecord | null>;
  /** The records of one parent, from a list by its code, through the cache. */
  children<T>(operation: ChildListOperation<T>, code: string, scope: SourceScope): Promise<T[]>;
  /** One record of a detail operation (null: no such record), through the cache. */
  detail<K extends DetailKind>(kind: K, code: string, scope: SourceScope): Promise<DetailRecord<K> | null>;
  /** A product cached and fresh right now (null: known not to exist), counted as a hit; else undefined. */
  productNow(goodsCode: string): ProductRecord | null | undefined;
  /** Products by goods code, through the product list when that costs fewer calls. */
  products(goodsCodes: readonly string[], scope: SourceScope): Promise<(ProductRecord | null | Error)[]>;
  /** For a page of `sites` sites' lanes: loads the product list in the background when that is cheaper; never fails. */
  prefetchProducts(sites: number, scope: SourceScope): void;
  /** The city of each site (null where unknown), walking list-with-points on a miss. */
  citiesOfSites(siteCodes: readonly string[], scope: SourceScope): Promise<(SiteCity | null)[]>;
  /** Every record of a list for the catalog index, walked from the upstream at most once per `ttlMs` across replicas. */
  snapshot<K extends 'sitesWithPoints' | 'products'>(kind: K, ttlMs: number): Promise<ListSnapshot<KindRecord[K]>>;
  facts(kind: ListKind): ListFacts;
  isCached(key: string): boolean;
}

/** A whole list, and how old its data is. */
export interface ListSnapshot<T> {
  records: T[];
  /** Time since it was walked, in ms. */
  ageMs: number;
  /** Its refresh failed: these are the last good records. */
  failed: boolean;
}

/** How long a detail waits for a walk in flight that brings its entity, in ms; at most half the time left. */
const WALK_WAIT_MS = 10_000;
/** Unknown products from which the size of the product list is worth one probe. */
const PRODUCT_PROBE_MIN = 3;

/** The shared sources; `clock`'s wall face dates a walk, which another replica may read. */
export function createSources(api: UpstreamApi, cache: Cache, ttl: SourceTtls, clock: Clock): Sources {
  const facts = Object.fromEntries(Object.keys(LISTS).map((kind) => [kind, { cap: undefined, total: undefined }])) as
    Record<ListKind, CapState & { total: number | undefined }>;
  const ttlOfClass: Record<Freshness, number> = { cities: ttl.citiesMs, sites: ttl.sitesMs, products: ttl.productsMs };
  const ttlOf = (kind: ListKind | DetailKind) => ttlOfClass[(kind in LISTS ? LISTS[kind as ListKind] : DETAILS[kind as DetailKind]).freshness];
  const walkSize = (kind: ListKind) => LISTS[kind].walkPageSize;
  // The list whose walk brings each detail's records.
  const walkerOf: Partial<Record<DetailKind, ListKind>> = Object.fromEntries(
    Object.entries(LISTS).flatMap(([kind, list]) => (list.primes === undefined ? [] : [[list.primes, kind]])),
  );

  const listCall = <K extends ListKind>(kind: K, p: number, s: number, signal: AbortSignal) =>
    api.list(kind, p, s, { signal }).then((result) => prime(kind, result as UpstreamPage<KindRecord[K]>));

  // A page that carries whole records of a detail stores each under that detail's key.
  function prime<K extends ListKind>(kind: K, result: UpstreamPage<KindRecord[K]>) {
    const primes = LISTS[kind].primes;
    if (primes === undefined) return result;
    const { key, codeOf } = DETAILS[primes] as { key(code: string): string; codeOf(record: KindRecord[K]): string };
    for (const record of result.items.filter(isRecord)) {
      const code = codeOf(record);
      cache.set(key(code), record, ttlOf(primes));
      const city = kind === 'sitesWithPoints' ? cityOfSite(record as SiteRecord) : null;
      if (city !== null) cache.set(siteCityKey(code), city, ttl.citiesMs);
    }
    return result;
  }

  // The upstream pages of a list, through the cache; every page seen tells the list's size.
  function fetcher<K extends ListKind>(kind: K, scope: SourceScope): PageFetcher<KindRecord[K]> {
    return async (p, s) => {
      const result = await cache.getOrLoad(LISTS[kind].key(p, s), ttlOf(kind), charged(scope, (signal) => listCall(kind, p, s, signal)), scope);
      facts[kind].total = result.total;
      return result;
    };
  }

  const remember = <K extends ListKind>(kind: K) => (p: number, s: number, result: UpstreamPage<KindRecord[K]>) =>
    cache.set(LISTS[kind].key(p, s), result, ttlOf(kind));

  const read = <K extends ListKind>(kind: K, page: number, pageSize: number, scope: SourceScope) =>
    readRange(fetcher(kind, scope), facts[kind], page, pageSize, { remember: remember(kind) });

  // A whole list, as one shared load; its pages belong to that load, not to whoever started it.
  const walk = <K extends ListKind>(kind: K, scope: SourceScope): Promise<(KindRecord[K] | null)[]> =>
    cache.getOrLoad(LISTS[kind].walkKey, ttlOf(kind), async (signal) => {
      const pages: SourceScope = { signal, chargeUpstreamCall: () => scope.chargeUpstreamCall?.() };
      return readAll(fetcher(kind, pages), facts[kind], walkSize(kind), remember(kind));
    }, scope);

  // An entity asked for while a walk that carries it runs waits for the walk, which primes it.
  const afterWalkOf = async (kind: DetailKind, entityKey: string, scope: SourceScope) => {
    const list = walkerOf[kind];
    if (list === undefined || cache.peek(entityKey) !== undefined) return;
    const waitMs = Math.min(WALK_WAIT_MS, scope.timeLeftMs === undefined ? WALK_WAIT_MS : scope.timeLeftMs() / 2);
    if (waitMs > 0) await cache.settled(LISTS[list].walkKey, waitMs, scope.signal);
  };

  async function detail<K extends DetailKind>(kind: K, code: string, scope: SourceScope): Promise<DetailRecord<K> | null> {
    const key = DETAILS[kind].key(code);
    await afterWalkOf(kind, key, scope);
    return cache.getOrLoad(key, ttlOf(kind), charged(scope, (signal) => api.detail(kind, code, { signal })), scope);
  }
  const product = (goodsCode: string, scope: SourceScope) => detail('product', goodsCode, scope);

  async function walkIsCheaper(unknown: number, scope: SourceScope): Promise<boolean> {
    if (unknown < 2) return false;
    if (facts.products.total === undefined && unknown >= PRODUCT_PROBE_MIN) {
      await read('products', 1, walkSize('products'), scope).catch(() => undefined);
    }
    return walkPages() < unknown;
  }

  // Upstream pages a walk of the product list takes (Infinity while its size is unknown).
  function walkPages(): number {
    const { total, cap } = facts.products;
    const size = walkSize('products');
    return total === undefined ? Number.POSITIVE_INFINITY : Math.ceil(total / Math.min(cap ?? size, size));
  }

  return {
    async page(kind, page, pageSize, scope) {
      const { items, total } = await read(kind, page, pageSize, scope);
      return { items: items.filter(isRecord), total };
    },
    cities: (scope) =>
      cache.getOrLoad(CITIES_BY_CODE_KEY, ttl.citiesMs, async () => {
        const all = await walk('cities', scope);
        return new Map(all.filter(isRecord).map((city) => [city.code, city]));
      }, scope),
    site: (code, scope) => detail('site', code, scope),
    detail,
    children: (operation, code, scope) =>
      cache.getOrLoad(operation.key(code), ttlOfClass[operation.freshness], charged(scope, (signal) => api.children(operation, code, { signal })), scope),
    productNow: (goodsCode) => cache.fresh<ProductRecord | null>(DETAILS.product.key(goodsCode)),
    async products(goodsCodes, scope) {
      const unknown = goodsCodes.filter((code) => cache.peek(DETAILS.product.key(code)) === undefined).length;
      // A failed walk falls back to details; records come from the walk itself, whose primed
      // entries may still be on their way to Redis.
      const walked = (await walkIsCheaper(unknown, scope)) ? await walk('products', scope).catch(() => []) : [];
      const byCode = new Map(walked.filter(isRecord).map((record) => [record.goodsCode, record]));
      return Promise.all(goodsCodes.map((code) => byCode.get(code) ?? product(code, scope).catch((error: unknown) => toError(error))));
    },
    prefetchProducts(sites, scope) {
      if (cache.peek(LISTS.products.walkKey) !== undefined) return;
      read('products', 1, walkSize('products'), scope)
        .then(() => {
          if (walkPages() <= sites) return walk('products', scope);
        })
        .catch(() => undefined);
    },
    async citiesOfSites(siteCodes, scope) {
      const known = siteCodes.map((code) => cache.peek<SiteCity>(siteCityKey(code)) ?? null);
      if (!known.includes(null)) return known;
      // One walk per sites TTL; its sites say their cities even where its primed entries are gone.
      const walked = citiesOfWalk(await walk('sitesWithPoints', scope));
      // Built from the walk now: a purge of `sites` must find it.
      scope.tag?.(LISTS.sitesWithPoints.freshness);
      return known.map((city, i) => city ?? walked.get(siteCodes[i]!) ?? null);
    },
    async snapshot(kind, ttlMs) {
      let failed = false;
      const { walkedAt, records } = await cache.getOrLoad(`index:${kind}`, ttlMs, async (signal) => {
        const fetchPage: PageFetcher<KindRecord[typeof kind]> = async (p, s) => {
          const result = await listCall(kind, p, s, signal);
          facts[kind].total = result.total;
          remember(kind)(p, s, result);
          return result;
        };
        const items = await readAll(fetchPage, facts[kind], walkSize(kind), remember(kind));
        return { walkedAt: clock.wall(), records: items.filter(isRecord) };
      }, { onStale: () => void (failed = true) });
      return { records, ageMs: Math.max(0, clock.wall() - walkedAt), failed };
    },
    facts: (kind) => ({ cap: facts[kind].cap, total: facts[kind].total }),
    isCached: (key) => cache.peek(key) !== undefined,
  };
}

// Private: a load that charges the caller's budget before it calls the upstream.
function charged<T>(scope: SourceScope, load: (signal: AbortSignal) => Promise<T>) {
  return (signal: AbortSignal) => {
    scope.chargeUpstreamCall?.();
    return load(signal);
  };
}

// Private: what a site says of its city (list-with-points only).
function cityOfSite(site: SiteRecord): SiteCity | null {
  return site.cityCode === null ? null : { code: site.cityCode, name: site.cityName ?? site.cityCode };
}

// Private: site code → city, built once per walk result.
const walkCities = new WeakMap<readonly (SiteRecord | null)[], Map<string, SiteCity>>();
function citiesOfWalk(sites: readonly (SiteRecord | null)[]): Map<string, SiteCity> {
  let cities = walkCities.get(sites);
  if (cities === undefined) {
    cities = new Map(sites.filter(isRecord).flatMap((site) => {
      const city = cityOfSite(site);
      return city === null ? [] : [[site.code, city] as const];
    }));
    walkCities.set(sites, cities);
  }
  return cities;
}

// Private: drops the placeholders of broken items once positions no longer matter.
function isRecord<T>(item: T | null): item is T {
  return item !== null;
}

function toError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
