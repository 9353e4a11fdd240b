/**
 * The one table of the upstream's GET operations: paths, parameters, how a record is read, cache
 * keys, freshness class, walk page size and budget cost. Nobody else spells a path or a key. It
 * sits in upstream/ because api.ts needs it and upstream/ imports nothing above it.
 */
import { normaliseCity, normaliseProduct, normaliseSite, type DefectReporter } from './normalise.js';
import type { CityRecord, ProductRecord, SiteRecord } from './records.js';

/** Which TTL keeps an operation's answers (`SourceTtls` in data/sources.ts). */
export type Freshness = 'cities' | 'sites' | 'products';

interface Operation<T> {
  /** The path; with more than one, equivalent paths, the next asked where one answers 404. */
  paths: readonly [string, ...string[]];
  freshness: Freshness;
  /** Upstream calls one call costs the budget. */
  cost: number;
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

const WALK_PAGE_SIZE = 100;

function list<T>(
  name: string, paths: ListOperation<T>['paths'], freshness: Freshness, read: Operation<T>['read'], primes?: DetailKind,
): ListOperation<T> {
  return {
    paths, freshness, read, cost: 1, walkPageSize: WALK_PAGE_SIZE, ...(primes ? { primes } : {}),
    key: (page, pageSize) => `${name}:${page}:${pageSize}`,
    walkKey: `${name}:walk`,
  };
}

function detail<T>(
  name: string, path: string, param: string, freshness: Freshness, read: Operation<T>['read'], codeOf: (record: T) => string,
): DetailOperation<T> {
  return { paths: [path], param, freshness, read, codeOf, cost: 1, key: keysOf(name) };
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
  cities: list<CityRecord>('cities', ['/api/city/list'], 'cities', normaliseCity),
  /** Plain sites (no points, no city). */
  sites: list<SiteRecord>('sites', ['/api/site/list', '/api/sites/list'], 'sites', normaliseSite),
  /** Sites with their points and city. */
  sitesWithPoints: list<SiteRecord>('sitesWithPoints', ['/api/site/list-with-points'], 'sites', normaliseSite, 'site'),
  products: list<ProductRecord>('products', ['/api/products/list'], 'products', normaliseProduct, 'product'),
};

/** The detail operations, by name. */
export const DETAILS = {
  /** The site with its points (no city). */
  site: detail<SiteRecord>('site', '/api/site/detail', 'siteCode', 'sites', normaliseSite, (site) => site.code),
  product: detail<ProductRecord>('product', '/api/product/detail', 'goodsCode', 'products', normaliseProduct, (product) => product.goodsCode),
};

export type ListKind = keyof typeof LISTS;
export type DetailKind = keyof typeof DETAILS;

/** The record each operation answers. */
type RecordOf<O> = O extends Operation<infer T> ? T : never;
export type ListRecord<K extends ListKind> = RecordOf<(typeof LISTS)[K]>;
export type DetailRecord<K extends DetailKind> = RecordOf<(typeof DETAILS)[K]>;
