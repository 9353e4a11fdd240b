/**
 * The upstream's seven operations, typed and normalised. Knows the paths and the upstream's
 * habits (not-found answers, the two plain site lists); knows nothing of caching or GraphQL.
 */
import type { Logger } from '../base/logger.js';
import type { UpstreamClient, UpstreamRequestOptions } from './contracts.js';
import { UpstreamError } from './errors.js';
import {
  isEmptyResult,
  isRaw,
  normaliseCity,
  normalisePage,
  normaliseProduct,
  normaliseSite,
  type DefectReporter,
} from './normalise.js';
import type { CityRecord, ProductRecord, SiteRecord, UpstreamPage } from './records.js';

/** The list operations, by the name the rest of the gateway uses for them. */
export type ListKind = 'cities' | 'sites' | 'sitesWithPoints' | 'products';

export interface UpstreamApi {
  listCities(page: number, pageSize: number, options?: UpstreamRequestOptions): Promise<UpstreamPage<CityRecord>>;
  /** Plain sites (no points, no city): `/api/site/list`, or `/api/sites/list` where the first is missing. */
  listSites(page: number, pageSize: number, options?: UpstreamRequestOptions): Promise<UpstreamPage<SiteRecord>>;
  listSitesWithPoints(page: number, pageSize: number, options?: UpstreamRequestOptions): Promise<UpstreamPage<SiteRecord>>;
  listProducts(page: number, pageSize: number, options?: UpstreamRequestOptions): Promise<UpstreamPage<ProductRecord>>;
  /** The site with its points, or `null` when the upstream does not know the code. */
  siteDetail(siteCode: string, options?: UpstreamRequestOptions): Promise<SiteRecord | null>;
  /** The product, or `null` when the upstream does not know the goods code. */
  productDetail(goodsCode: string, options?: UpstreamRequestOptions): Promise<ProductRecord | null>;
}

const PLAIN_SITE_PATHS = ['/api/site/list', '/api/sites/list'] as const;

export function createUpstreamApi(client: UpstreamClient, logger?: Logger): UpstreamApi {
  const report: DefectReporter = (what) => logger?.warn({ defect: what }, 'dropped a broken upstream item');
  // Which of the two equivalent plain site lists answers; switches when one answers 404.
  let plainSitePath = 0;

  async function list<T>(
    path: string,
    page: number,
    pageSize: number,
    one: (raw: Record<string, unknown>, report: DefectReporter) => T | null,
    options?: UpstreamRequestOptions,
  ): Promise<UpstreamPage<T>> {
    const result = await client.get(path, { page, pageSize }, options);
    const normalised = normalisePage(result, one, path, (page - 1) * pageSize, report);
    if (normalised === null) {
      throw new UpstreamError('UPSTREAM_UNAVAILABLE', `The upstream answered ${path} with a malformed list`, { path });
    }
    return normalised;
  }

  async function detail<T>(
    path: string,
    query: Record<string, string>,
    one: (raw: Record<string, unknown>) => T | null,
    options?: UpstreamRequestOptions,
  ): Promise<T | null> {
    let result: unknown;
    try {
      result = await client.get(path, query, options);
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
    if (isEmptyResult(result)) return null;
    const record = isRaw(result) ? one(result) : null;
    if (record === null) {
      throw new UpstreamError('UPSTREAM_UNAVAILABLE', `The upstream answered ${path} with a malformed record`, { path });
    }
    return record;
  }

  async function listSites(page: number, pageSize: number, options?: UpstreamRequestOptions) {
    const first = plainSitePath;
    try {
      return await list(PLAIN_SITE_PATHS[first]!, page, pageSize, normaliseSite, options);
    } catch (error) {
      if (!(error instanceof UpstreamError && error.status === 404)) throw error;
      plainSitePath = 1 - first;
      logger?.warn({ path: PLAIN_SITE_PATHS[first] }, 'plain site list answered 404; using the other one');
      return list(PLAIN_SITE_PATHS[1 - first]!, page, pageSize, normaliseSite, options);
    }
  }

  return {
    listCities: (page, pageSize, options) => list('/api/city/list', page, pageSize, normaliseCity, options),
    listSites,
    listSitesWithPoints: (page, pageSize, options) =>
      list('/api/site/list-with-points', page, pageSize, normaliseSite, options),
    listProducts: (page, pageSize, options) =>
      list('/api/products/list', page, pageSize, normaliseProduct, options),
    siteDetail: (siteCode, options) =>
      detail('/api/site/detail', { siteCode }, (raw) => normaliseSite(raw, report), options),
    productDetail: (goodsCode, options) => detail('/api/product/detail', { goodsCode }, normaliseProduct, options),
  };
}

// Private: the upstream's way of saying "no such record" is not documented; accept an error
// envelope with code 404 or a message that says so.
const NOT_FOUND_MSG = /not\s*(be\s*)?found|not\s*exist|no\s*such|no\s*data|不存在|未找到/i;

function isNotFound(error: unknown): boolean {
  return (
    error instanceof UpstreamError &&
    error.code === 'UPSTREAM_ERROR' &&
    (error.upstreamCode === 404 || NOT_FOUND_MSG.test(error.upstreamMsg ?? ''))
  );
}
