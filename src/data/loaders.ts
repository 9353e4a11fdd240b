/**
 * Per-request DataLoaders over the shared sources (see sources.ts for the cache design). A fresh
 * set is made for every GraphQL request, bound to that request's scope: its signal (deadline,
 * client gone) and its record of stale data served. Nothing one client loads is visible to
 * another except through the shared cache, whose keys never carry a token.
 */
import DataLoader from 'dataloader';
import type { DetailKind, DetailRecord, ListKind } from '../upstream/operations.js';
import type { CityRecord, PageResult, ProductRecord, SiteRecord } from '../upstream/records.js';
import type { KindRecord, SiteCity, Sources, SourceScope } from './sources.js';

export interface Loaders {
  productByGoodsCode: DataLoader<string, ProductRecord | null>;
  /**
   * The product when the shared cache holds it fresh (null: it does not exist), without a promise;
   * undefined: ask `productByGoodsCode`. A 50-site page has 1,600 lanes: a promise each was a
   * good part of its execution and of its garbage.
   */
  productNow(goodsCode: string): ProductRecord | null | undefined;
  siteByCode: DataLoader<string, SiteRecord | null>;
  /**
   * The records of a detail operation by code (null: no such record). `siteByCode` is
   * `byCode('site')`; products take `productByGoodsCode`, which plans a walk where it is cheaper.
   */
  byCode<K extends DetailKind>(kind: K): DataLoader<string, DetailRecord<K> | null>;
  cityByCode: DataLoader<string, CityRecord | null>;
  cityBySiteCode: DataLoader<string, SiteCity | null>;
  /** Starts loading the product list in the background for a page of `sites` sites' lanes. */
  prefetchProducts(sites: number): void;
  /** One client page of a list. */
  page<K extends ListKind>(kind: K, page: number, pageSize: number): Promise<PageResult<KindRecord[K]>>;
}

interface PageKey {
  kind: ListKind;
  page: number;
  pageSize: number;
}

export function createLoaders(sources: Sources, scope: SourceScope): Loaders {
  // Each loader is made when the request first uses it: most requests use one or two of them.
  let pages: DataLoader<PageKey, PageResult<unknown>, string> | undefined;
  let productByGoodsCode: Loaders['productByGoodsCode'] | undefined;
  const byCode = new Map<DetailKind, DataLoader<string, unknown>>();
  let cityByCode: Loaders['cityByCode'] | undefined;
  let cityBySiteCode: Loaders['cityBySiteCode'] | undefined;
  // Each product is looked up (and counted) once per request, as the DataLoader would.
  const productsNow = new Map<string, ProductRecord | null>();
  const detailLoader = <K extends DetailKind>(kind: K) => {
    let loader = byCode.get(kind);
    if (loader === undefined) {
      loader = new DataLoader((codes) => settle(codes.map((code) => sources.detail(kind, code, scope))));
      byCode.set(kind, loader);
    }
    return loader as DataLoader<string, DetailRecord<K> | null>;
  };
  return {
    byCode: detailLoader,
    productNow(goodsCode) {
      if (productsNow.has(goodsCode)) return productsNow.get(goodsCode);
      const product = sources.productNow(goodsCode);
      if (product !== undefined) productsNow.set(goodsCode, product);
      return product;
    },
    get productByGoodsCode() {
      return (productByGoodsCode ??= new DataLoader((codes) => sources.products(codes, scope)));
    },
    get siteByCode() {
      return detailLoader('site');
    },
    get cityByCode() {
      return (cityByCode ??= new DataLoader(async (codes) => {
        const cities = await sources.cities(scope);
        return codes.map((code) => cities.get(code) ?? null);
      }));
    },
    get cityBySiteCode() {
      return (cityBySiteCode ??= new DataLoader((codes) => sources.citiesOfSites(codes, scope)));
    },
    prefetchProducts: (sites) => sources.prefetchProducts(sites, scope),
    page: <K extends ListKind>(kind: K, page: number, pageSize: number) => {
      pages ??= new DataLoader<PageKey, PageResult<unknown>, string>(
        (keys) => settle(keys.map((key) => sources.page(key.kind, key.page, key.pageSize, scope))),
        { cacheKeyFn: (key) => `${key.kind}:${key.page}:${key.pageSize}` },
      );
      return pages.load({ kind, page, pageSize }) as Promise<PageResult<KindRecord[K]>>;
    },
  };
}

// Private: one failed key must not fail its batch: DataLoader takes an Error per key.
function settle<T>(loads: Promise<T>[]): Promise<(T | Error)[]> {
  return Promise.all(loads.map((load) => load.catch((error: unknown) => toError(error))));
}

function toError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
