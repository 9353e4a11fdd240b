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
 *    the operation and its arguments, never the token. With REDIS_URL a Redis level under it is
 *    shared by the replicas (cache/lru-cache.ts); `peek` still sees this process only.
 *
 * Keys, TTLs and walk sizes are those of the table of operations (upstream/operations.ts).
 *
 * Lists prime entities: a list-with-points page stores each site under `site:<code>` (with its
 * points) and its city under `siteCity:<code>`; a product list page stores `product:<goodsCode>`.
 * The site-to-city index is what lets `Site.city` work for sources that carry no city (plain
 * lists, site detail): on a miss the list-with-points pages are walked once, which fills it.
 *
 * Products take the cheaper road: a request that needs more unknown products than the product
 * list has pages walks the list (priming every product) instead of asking for each detail. And a
 * site or product asked for while its list is being walked (here or on another replica) waits
 * for the walk rather than asking for its detail.
 */
import type { Clock } from '../base/clock.js';
import type { Cache, LoadScope } from '../cache/cache.js';
import type { UpstreamApi } from '../upstream/api.js';
import { DETAILS, LISTS, type DetailKind, type DetailRecord, type Freshness, type ListKind, type ListRecord } from '../upstream/operations.js';
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
  /** Time left before the caller's deadline, in ms (`REQUEST_TIMEOUT_MS`); none: no deadline. */
  timeLeftMs?(): number;
  /** Names data the caller's answer is built from (request/tags.ts): the loaders call it for pages, the resolvers for entities (graph/resolvers/entity-tags.ts). */
  tag?(kind: string, code?: string): void;
}

/** What the gateway has learnt of a list, for planning (see the upstream budget). */
export interface ListFacts {
  /** The effective page size cap, once seen. */
  cap: number | undefined;
  /** Records in the list, as of the last page fetched. */
  total: number | undefined;
}

export interface Sources {
  /** One page as the client asked for it, assembled from cached upstream pages. */
  page<K extends ListKind>(kind: K, page: number, pageSize: number, scope: SourceScope): Promise<PageResult<KindRecord[K]>>;
  /** Every city by code. */
  cities(scope: SourceScope): Promise<Map<string, CityRecord>>;
  site(code: string, scope: SourceScope): Promise<SiteRecord | null>;
  /** One record of a detail operation (null: no such record), through the cache. */
  detail<K extends DetailKind>(kind: K, code: string, scope: SourceScope): Promise<DetailRecord<K> | null>;
  /** A product cached and fresh right now (null: known not to exist), counted as a hit; else undefined. */
  productNow(goodsCode: string): ProductRecord | null | undefined;
  /** Products by goods code, through the product list when that costs fewer calls. */
  products(goodsCodes: readonly string[], scope: SourceScope): Promise<(ProductRecord | null | Error)[]>;
  /**
   * For a page of `sites` sites whose lanes' products are wanted: fetches the product list's
   * first page (its size decides the plan) and, when the list has no more pages than sites
   * (each site brings at least one new goods code, as a rule), the rest, without waiting for
   * the lanes. In the background; never fails.
   */
  prefetchProducts(sites: number, scope: SourceScope): void;
  /** The city of each site (null where unknown), walking list-with-points on a miss. */
  citiesOfSites(siteCodes: readonly string[], scope: SourceScope): Promise<(SiteCity | null)[]>;
  /**
   * Every record of a list as of now, for the catalog index: walked straight from the upstream
   * (cached pages are not reused; the pages and the entities they carry are stored on the way),
   * at most once per `ttlMs` across the replicas, under the key `index:<kind>`.
   */
  snapshot<K extends 'sitesWithPoints' | 'products'>(kind: K, ttlMs: number): Promise<ListSnapshot<KindRecord[K]>>;
  /** What is known of each list. */
  facts(kind: ListKind): ListFacts;
  /** Whether `key` is cached and fresh. */
  isCached(key: string): boolean;
}

/** A whole list, and how old its data is. */
export interface ListSnapshot<T> {
  records: T[];
  /** Time since it was walked (by this replica or another), in ms. */
  ageMs: number;
  /** Its refresh failed: these are the last good records (the cache's stale-if-error). */
  failed: boolean;
}

/**
 * How long a detail waits for a walk in flight that will bring its entity, in ms: a walk is a
 * fill, whose holder renews its lock while it works (redis/fill.ts), so a slow one is alive. At
 * 2 s, walks on eight cold replicas sharing one core outlasted the wait, and details were asked.
 * A caller with a deadline waits at most half the time it has left: a walk slower than that
 * leaves it the other half for its own detail call, rather than a REQUEST_TIMEOUT for waiting.
 */
const WALK_WAIT_MS = 10_000;
/** Unknown products from which the size of the product list is worth one probe. */
const PRODUCT_PROBE_MIN = 3;

/** `clock`'s wall face dates a walk, whose record the shared cache may hand to another replica. */
export function createSources(api: UpstreamApi, cache: Cache, ttl: SourceTtls, clock: Clock): Sources {
  // What each list's silent page-size cap and size turned out to be, for the life of the process.
  const facts = Object.fromEntries(Object.keys(LISTS).map((kind) => [kind, { cap: undefined, total: undefined }])) as
    Record<ListKind, CapState & { total: number | undefined }>;
  const ttlOfClass: Record<Freshness, number> = { cities: ttl.citiesMs, sites: ttl.sitesMs, products: ttl.productsMs };
  const ttlOf = (kind: ListKind | DetailKind) => ttlOfClass[(kind in LISTS ? LISTS[kind as ListKind] : DETAILS[kind as DetailKind]).freshness];
  const walkSize = (kind: ListKind) => LISTS[kind].walkPageSize;
  // The list whose walk brings each detail's records (an entity asked for during it waits for it).
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

  // The upstream pages of each list, through the cache, on behalf of one caller.
  // Every page seen, whoever loaded it (this process, or another replica through the shared
  // level), tells the list's size: the product plan needs it.
  function fetcher<K extends ListKind>(kind: K, scope: SourceScope): PageFetcher<KindRecord[K]> {
    return async (p, s) => {
      const result = await cache.getOrLoad(LISTS[kind].key(p, s), ttlOf(kind), charged(scope, (signal) => listCall(kind, p, s, signal)), scope);
      facts[kind].total = result.total;
      return result;
    };
  }

  // A page learnt on the way (page 1 at the cap, seen while discovering the cap) is kept.
  const remember = <K extends ListKind>(kind: K) => (p: number, s: number, result: UpstreamPage<KindRecord[K]>) =>
    cache.set(LISTS[kind].key(p, s), result, ttlOf(kind));

  // One client page of a list, assembled from cached upstream pages.
  const read = <K extends ListKind>(kind: K, page: number, pageSize: number, scope: SourceScope) =>
    readRange(fetcher(kind, scope), facts[kind], page, pageSize, { remember: remember(kind) });

  // A whole list, as one shared load; its pages belong to that load, not to whoever started it.
  const walk = <K extends ListKind>(kind: K, scope: SourceScope): Promise<(KindRecord[K] | null)[]> =>
    cache.getOrLoad(LISTS[kind].walkKey, ttlOf(kind), async (signal) => {
      const pages: SourceScope = { signal, chargeUpstreamCall: () => scope.chargeUpstreamCall?.() };
      return readAll(fetcher(kind, pages), facts[kind], walkSize(kind), remember(kind));
    }, scope);

  // An entity asked for while a walk of the list that carries it runs, here or on another replica,
  // waits for the walk (up to WALK_WAIT_MS): its pages prime the entity, and a detail call of its
  // own would be one call more (a cold fleet of replicas made several so, per walk).
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

  // Whether walking the product list costs fewer calls than `unknown` product details.
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
    productNow: (goodsCode) => cache.fresh<ProductRecord | null>(DETAILS.product.key(goodsCode)),
    async products(goodsCodes, scope) {
      const unknown = goodsCodes.filter((code) => cache.peek(DETAILS.product.key(code)) === undefined).length;
      // A failed walk is no failure: the details below are asked for one by one instead. What the
      // walk brought is taken from it, not from the cache: a walk another replica made arrives
      // whole, while the entries it primed may still be on their way to Redis.
      const walked = (await walkIsCheaper(unknown, scope)) ? await walk('products', scope).catch(() => []) : [];
      const byCode = new Map(walked.filter(isRecord).map((record) => [record.goodsCode, record]));
      return Promise.all(goodsCodes.map((code) => byCode.get(code) ?? product(code, scope).catch((error: unknown) => toError(error))));
    },
    prefetchProducts(sites, scope) {
      if (cache.peek(LISTS.products.walkKey) !== undefined) return;
      // The walk's own first page (same upstream pages, so nothing is asked twice).
      read('products', 1, walkSize('products'), scope)
        .then(() => {
          if (walkPages() <= sites) return walk('products', scope);
        })
        .catch(() => undefined);
    },
    async citiesOfSites(siteCodes, scope) {
      const known = siteCodes.map((code) => cache.peek<SiteCity>(siteCityKey(code)) ?? null);
      if (!known.includes(null)) return known;
      // One walk per sites TTL, however many requests miss. Its sites say their cities even where
      // the entries it primed are not in this process's cache: evicted, or primed by another
      // replica (with a shared cache level the walk itself may come from that replica).
      const walked = citiesOfWalk(await walk('sitesWithPoints', scope));
      // The answer is built from the walk now: a purge of `sites` (which drops the walk) finds it.
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

// Private: site code → city, from a walk of list-with-points; built once per walk result.
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
