/**
 * The seven read operations, after authentication: query in, `Answer` out. Pagination follows
 * the description (page starts at 1, pageSize defaults to 10) plus one undocumented limit: a
 * silent cap at `behaviour.maxPageSize`.
 */
import { errorEnvelope, successEnvelope, type Answer } from './reply.js';
import type { Behaviour } from './behaviour.js';
import type { Catalog } from './data.js';
import {
  cityView, createViewContext, plainSiteView, productView, siteWithPointsView, type ViewContext,
} from './views.js';

/** Everything an operation reads. */
export interface OperationInput {
  query: URLSearchParams;
  catalog: Catalog;
  behaviour: Behaviour;
  nowMs: number;
}

type Operation = (input: OperationInput, ctx: ViewContext) => Answer;

const DEFAULT_PAGE = 1;
const DEFAULT_PAGE_SIZE = 10;

const OPERATIONS: ReadonlyMap<string, Operation> = new Map<string, Operation>([
  ['/api/city/list', (input, ctx) => page(input, input.catalog.cities, (c) => cityView(ctx, c))],
  ['/api/site/list', (input, ctx) => page(input, input.catalog.sites, (s) => plainSiteView(ctx, s))],
  ['/api/sites/list', (input, ctx) => page(input, input.catalog.sites, (s) => plainSiteView(ctx, s))],
  ['/api/site/list-with-points', (input, ctx) =>
    page(input, input.catalog.sites, (s) => siteWithPointsView(ctx, s, 'list-with-points'))],
  ['/api/site/detail', siteDetail],
  ['/api/products/list', (input, ctx) => page(input, input.catalog.products, (p) => productView(ctx, p))],
  ['/api/product/detail', productDetail],
]);

/** Whether `path` is one of the seven operations. */
export function isOperationPath(path: string): boolean {
  return OPERATIONS.has(path);
}

/** Run the operation at `path` (one for which `isOperationPath` holds). */
export function runOperation(path: string, input: OperationInput): Answer {
  const operation = OPERATIONS.get(path);
  if (!operation) throw new Error(`runOperation: not an operation path: ${path}`);
  return operation(input, createViewContext(input.catalog, input.behaviour.numbersAsStrings));
}

// Private: a positive integer parameter, or `fallback` when absent, non-numeric or < 1.
function positiveInt(raw: string | null, fallback: number): number {
  if (raw === null || !/^\s*\d+\s*$/.test(raw)) return fallback;
  const value = Number(raw);
  return Number.isSafeInteger(value) && value >= 1 ? value : fallback;
}

// Private: one page of `records`; a page past the end is empty, `total` counts every record.
function page<T>(input: OperationInput, records: readonly T[], view: (record: T) => unknown): Answer {
  const pageNumber = positiveInt(input.query.get('page'), DEFAULT_PAGE);
  const requested = positiveInt(input.query.get('pageSize'), DEFAULT_PAGE_SIZE);
  const pageSize = Math.min(requested, Math.max(1, input.behaviour.maxPageSize));
  const offset = (pageNumber - 1) * pageSize;
  const items = records.slice(offset, offset + pageSize).map(view);
  return successEnvelope({ items, total: records.length }, input.nowMs);
}

// Private: the error envelope for a missing required parameter.
function missingParameter(input: OperationInput, name: string): Answer {
  return errorEnvelope(input.behaviour.errorStatus, 400, `${name} is required`, input.nowMs);
}

// Private: the answer for an unknown code, per `behaviour.notFound`.
function notFound(input: OperationInput): Answer {
  switch (input.behaviour.notFound) {
    case 'empty': return successEnvelope({}, input.nowMs);
    case 'error': return errorEnvelope(input.behaviour.errorStatus, 404, 'data not found', input.nowMs);
    default: return successEnvelope(null, input.nowMs);
  }
}

// Private: `/api/site/detail?siteCode=`; no city and no lane prices (the documented quirk).
function siteDetail(input: OperationInput, ctx: ViewContext): Answer {
  const siteCode = input.query.get('siteCode');
  if (!siteCode) return missingParameter(input, 'siteCode');
  const site = input.catalog.sites.find((s) => s.code === siteCode);
  return site ? successEnvelope(siteWithPointsView(ctx, site, 'detail'), input.nowMs) : notFound(input);
}

// Private: `/api/product/detail?goodsCode=`.
function productDetail(input: OperationInput, ctx: ViewContext): Answer {
  const goodsCode = input.query.get('goodsCode');
  if (!goodsCode) return missingParameter(input, 'goodsCode');
  const product = input.catalog.products.find((p) => p.goodsCode === goodsCode);
  return product ? successEnvelope(productView(ctx, product), input.nowMs) : notFound(input);
}
