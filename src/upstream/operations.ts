/**
 * The one table of the upstream's GET operations: paths, parameters, how a record is read, what
 * its records carry, cache keys, freshness class, walk page size and budget cost. Three shapes: a
 * paged list, one record by its code, and a list by a parent's code. Nobody else spells a path or
 * a key. It sits in upstream/ because api.ts needs it and upstream/ imports nothing above it.
 */
import { normaliseCity, normaliseProduct, normaliseSite, type DefectReporter } from './normalise.js';
import type { CityRecord, ProductRecord, SiteRecord } from './records.js';

/** Which TTL keeps an operation's answers (`SourceTtls` in data/sources.ts). */
export type Freshness = 'cities' | 'sites' | 'products';

/** Parts a record may hold: a site's points, its city, its lanes' prices; a city's numeric id. */
export type Carried = 'points' | 'city' | 'lanePrices' | 'cityId';

interface Operation<T> {
  /** The path; with more than one, equivalent paths, the next asked where one answers 404. */
  paths: readonly [string, ...string[]];
  freshness: Freshness;
  /** Upstream calls one call costs the budget. */
  cost: number;
  /** What its records hold besides their own fields, which fields bound to other calls may read instead (graph/bindings.ts). */
  carries: readonly Carried[];
  /** One record of the answer; null when it is too broken to use (no code). */
  read(raw: Record<string, unknown>, report: DefectReporter): T | null;
}

/** A list: `page` and `pageSize` (from 1), answered `{ items, total }`. */
interface ListOperation<T> extends Operation<T> {
  /** Page size used when walking the whole list. */
  walkPageSize: number;
  /** The cache key of one upstream page. */
  key(page: number, pageSize: number): string;
  /** The cache key of a walk of the whole list (one shared load). */
  walkKey: string;
  /** The detail whose records its pages carry whole: each is cached under that detail's key too. */
  primes?: DetailKind;
}

/** One record by its code, the one query parameter; "no such record" is answered `null`. */
interface DetailOperation<T> extends Operation<T> {
  /** The query parameter carrying the code. */
  param: string;
  /** The cache key of one record (also where a list primes it). */
  key(code: string): string;
  /** The code of a record it answers. */
  codeOf(record: T): string;
}

/** The records of one parent by the parent's code, the one query parameter: all at once, answered `{ items }` or as an array. */
export interface ChildListOperation<T> extends Operation<T> {
  /** The query parameter carrying the parent's code. */
  param: string;
  /** The cache key of one parent's records. */
  key(code: string): string;
}

const WALK_PAGE_SIZE = 100;

/** What each shape is made from; `carries` defaults to nothing. */
interface Declared<T> {
  freshness: Freshness;
  read: Operation<T>['read'];
  carries?: readonly Carried[];
}

function list<T>(name: string, paths: ListOperation<T>['paths'], declared: Declared<T> & { primes?: DetailKind }): ListOperation<T> {
  return {
    paths, carries: [], ...declared, cost: 1, walkPageSize: WALK_PAGE_SIZE,
    key: (page, pageSize) => `${name}:${page}:${pageSize}`,
    walkKey: `${name}:walk`,
  };
}

function detail<T>(name: string, path: string, param: string, declared: Declared<T> & { codeOf(record: T): string }): DetailOperation<T> {
  return { paths: [path], param, carries: [], ...declared, cost: 1, key: keysOf(name) };
}

/** A list by a parent's code (exported for tests, which declare their own). */
export function childList<T>(name: string, path: string, param: string, declared: Declared<T>): ChildListOperation<T> {
  return { paths: [path], param, carries: [], ...declared, cost: 1, key: keysOf(name) };
}

/** Detail keys kept per kind, at most; past it they are made afresh. */
const KEYS_KEPT = 16_384;

// Private: each code's key made once, so its string hash is computed once across many lookups.
function keysOf(name: string): (code: string) => string {
  let keys = new Map<string, string>();
  return (code) => {
    let key = keys.get(code);
    if (key === undefined) {
      if (keys.size >= KEYS_KEPT) keys = new Map();
      key = `${name}:${code}`;
      keys.set(code, key);
    }
    return key;
  };
}

/** The list operations, by the name the rest of the gateway uses for them. */
export const LISTS = {
  cities: list<CityRecord>('cities', ['/api/city/list'], { freshness: 'cities', read: normaliseCity, carries: ['cityId'] }),
  /** Plain sites (no points, no city). */
  sites: list<SiteRecord>('sites', ['/api/site/list', '/api/sites/list'], { freshness: 'sites', read: normaliseSite }),
  /** Sites with their points, lane prices and city. */
  sitesWithPoints: list<SiteRecord>('sitesWithPoints', ['/api/site/list-with-points'], {
    freshness: 'sites', read: normaliseSite, primes: 'site', carries: ['points', 'city', 'lanePrices'],
  }),
  products: list<ProductRecord>('products', ['/api/products/list'], { freshness: 'products', read: normaliseProduct, primes: 'product' }),
};

/** The detail operations, by name. */
export const DETAILS = {
  /** The site with its points (no city, no lane prices). */
  site: detail<SiteRecord>('site', '/api/site/detail', 'siteCode', {
    freshness: 'sites', read: normaliseSite, codeOf: (site) => site.code, carries: ['points'],
  }),
  product: detail<ProductRecord>('product', '/api/product/detail', 'goodsCode', {
    freshness: 'products', read: normaliseProduct, codeOf: (product) => product.goodsCode,
  }),
};

/** The lists by a parent's code, by name: none the upstream offers yet. */
export const CHILD_LISTS = {} satisfies Record<string, ChildListOperation<unknown>>;

export type ListKind = keyof typeof LISTS;
export type DetailKind = keyof typeof DETAILS;
export type ChildKind = keyof typeof CHILD_LISTS;

/** The record each operation answers. */
type RecordOf<O> = O extends Operation<infer T> ? T : never;
export type ListRecord<K extends ListKind> = RecordOf<(typeof LISTS)[K]>;
export type DetailRecord<K extends DetailKind> = RecordOf<(typeof DETAILS)[K]>;

/** What the records of the operation named `name` carry (none: an unknown name). */
export function carriedBy(name: string): readonly Carried[] {
  const tables: Record<string, Operation<unknown>>[] = [LISTS, DETAILS, CHILD_LISTS];
  return tables.find((table) => Object.hasOwn(table, name))?.[name]?.carries ?? [];
}
