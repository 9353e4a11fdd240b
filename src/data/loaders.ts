/**
 * Per-request DataLoaders over the shared sources, bound to one request's scope. A page tags its
 * list each time it is asked for, whatever served it; entities are tagged by the fields that show
 * them, since a cached entity is loaded by no batch.
 */
import DataLoader from 'dataloader';
import { LISTS, type ChildListOperation, type DetailKind, type DetailRecord, type ListKind } from '../upstream/operations.js';
import type { CityRecord, PageResult, ProductRecord, SiteRecord } from '../upstream/records.js';
import type { KindRecord, SiteCity, Sources, SourceScope } from './sources.js';

export interface Loaders {
  productByGoodsCode: DataLoader<string, ProductRecord | null>;
  /** The product (null: none), without a promise when cached fresh (one per lane would add up); else loaded. */
  product(goodsCode: string): ProductRecord | null | Promise<ProductRecord | null>;
  siteByCode: DataLoader<string, SiteRecord | null>;
  /** The records of a detail operation by code (null: none); products take `productByGoodsCode`. */
  byCode<K extends DetailKind>(kind: K): DataLoader<string, DetailRecord<K> | null>;
  /** The records of each parent by its code, from a list by a parent's code; tags the list's freshness, as a page does. */
  children<T>(operation: ChildListOperation<T>): DataLoader<string, T[]>;
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
  return new RequestLoaders(sources, scope);
}

// Private: each loader is made when first used (most requests use one or two); a class for speed.
class RequestLoaders implements Loaders {
  #pages: DataLoader<PageKey, PageResult<unknown>, string> | undefined;
  #productByGoodsCode: Loaders['productByGoodsCode'] | undefined;
  #byCode: Map<DetailKind, DataLoader<string, unknown>> | undefined;
  #children: Map<ChildListOperation<unknown>, DataLoader<string, unknown[]>> | undefined;
  #cityByCode: Loaders['cityByCode'] | undefined;
  #cityBySiteCode: Loaders['cityBySiteCode'] | undefined;
  // Each product is looked up (and counted) once per request, as the DataLoader would.
  #productsNow: Map<string, ProductRecord | null> | undefined;

  constructor(
    private readonly sources: Sources,
    private readonly scope: SourceScope,
  ) {}

  byCode<K extends DetailKind>(kind: K): DataLoader<string, DetailRecord<K> | null> {
    const byCode = (this.#byCode ??= new Map());
    let loader = byCode.get(kind);
    if (loader === undefined) {
      loader = new DataLoader<string, unknown>((codes) => settle(codes.map((code) => this.sources.detail(kind, code, this.scope))));
      byCode.set(kind, loader);
    }
    return loader as DataLoader<string, DetailRecord<K> | null>;
  }

  children<T>(operation: ChildListOperation<T>): DataLoader<string, T[]> {
    this.scope.tag?.(operation.freshness);
    const children = (this.#children ??= new Map());
    let loader = children.get(operation);
    if (loader === undefined) {
      loader = new DataLoader<string, unknown[]>((codes) => settle(codes.map((code) => this.sources.children(operation, code, this.scope))));
      children.set(operation, loader);
    }
    return loader as DataLoader<string, T[]>;
  }

  product(goodsCode: string): ProductRecord | null | Promise<ProductRecord | null> {
    const known = this.#productsNow?.get(goodsCode);
    if (known !== undefined) return known;
    const product = this.sources.productNow(goodsCode);
    if (product === undefined) return this.productByGoodsCode.load(goodsCode);
    (this.#productsNow ??= new Map()).set(goodsCode, product);
    return product;
  }

  get productByGoodsCode(): Loaders['productByGoodsCode'] {
    return (this.#productByGoodsCode ??= new DataLoader<string, ProductRecord | null>((codes) => this.sources.products(codes, this.scope)));
  }

  get siteByCode(): Loaders['siteByCode'] {
    return this.byCode('site');
  }

  get cityByCode(): Loaders['cityByCode'] {
    return (this.#cityByCode ??= new DataLoader(async (codes) => {
      const cities = await this.sources.cities(this.scope);
      return codes.map((code) => cities.get(code) ?? null);
    }));
  }

  get cityBySiteCode(): Loaders['cityBySiteCode'] {
    return (this.#cityBySiteCode ??= new DataLoader((codes) => this.sources.citiesOfSites(codes, this.scope)));
  }

  prefetchProducts(sites: number): void {
    this.sources.prefetchProducts(sites, this.scope);
  }

  page<K extends ListKind>(kind: K, page: number, pageSize: number): Promise<PageResult<KindRecord[K]>> {
    this.scope.tag?.(LISTS[kind].freshness);
    this.#pages ??= new DataLoader<PageKey, PageResult<unknown>, string>(
      (keys) => settle(keys.map((key) => this.sources.page(key.kind, key.page, key.pageSize, this.scope))),
      { cacheKeyFn: (key) => `${key.kind}:${key.page}:${key.pageSize}` },
    );
    return this.#pages.load({ kind, page, pageSize }) as Promise<PageResult<KindRecord[K]>>;
  }
}

// Private: one failed key must not fail its batch: DataLoader takes an Error per key.
function settle<T>(loads: Promise<T>[]): Promise<(T | Error)[]> {
  return Promise.all(loads.map((load) => load.catch((error: unknown) => toError(error))));
}

function toError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
