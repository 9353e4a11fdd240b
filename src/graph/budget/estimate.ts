/**
 * Estimates the upstream calls an operation can cause under the gateway's own plan, before it
 * runs: list pages (cut to the learnt page-size cap), per-item lookups, the walks behind
 * `Site.city` (list-with-points) and `City.cityId` (the city list), and for products the walk
 * of the product list (the plan asks for details one by one only when fewer are missing than
 * the list has pages). Calls already cached, and the same call asked twice, count nothing.
 *
 * Before the gateway has seen a list, its cap is taken to be `ASSUMED_CAP` and a walk counts as
 * one call; the execution-time hard stop (the request scope's charge) covers what that misses.
 *
 * Fields answered from the catalog index cost the operation nothing: the index is shared work,
 * built at most once per refresh interval whoever asks, and not charged to whoever asks first.
 * Its sites carry their points and city, as list-with-points does.
 */
import { valueFromASTUntyped, type FieldNode, type FragmentDefinitionNode, type OperationDefinitionNode } from 'graphql';
import { MAX_WALK_CALLS } from '../../data/page-range.js';
import type { ListFacts } from '../../data/sources.js';
import type { ListKind } from '../../upstream/api.js';
import { decodeId } from '../ids.js';
import { fieldsOf as fieldsIn } from '../selection.js';

/** What the estimate needs to know of the gateway's state. */
export interface Planner {
  facts(kind: ListKind): ListFacts;
  isCached(key: string): boolean;
}

/** Site sources, for what a site's fields cost. */
type SiteSource = 'sites' | 'sitesWithPoints' | 'detail';

interface Walker {
  planner: Planner;
  fragments: Record<string, FragmentDefinitionNode>;
  variables: Record<string, unknown>;
  /** Planned upstream calls by key: the same call counts once. */
  calls: Set<string>;
}

const WALK_PAGE_SIZE = 100;
/** Site fields only list-with-points (of the two site lists) answers (as `Query.sites` plans). */
const SITE_FIELDS_NEEDING_POINTS = ['points', 'city', 'stockSummary'];
/** The page-size cap assumed until the upstream shows its own (the mock's default; the real one is not documented). */
const ASSUMED_CAP = 50;

export function estimateUpstreamCalls(
  operation: OperationDefinitionNode,
  fragments: Record<string, FragmentDefinitionNode>,
  variables: Record<string, unknown>,
  planner: Planner,
): number {
  const walker: Walker = { planner, fragments, variables, calls: new Set() };
  for (const field of fieldsOf(walker, operation.selectionSet)) rootField(walker, field);
  return walker.calls.size;
}

function rootField(w: Walker, field: FieldNode): void {
  const args = argumentsOf(w, field);
  const page = Number(args.page ?? 1);
  const pageSize = Number(args.pageSize ?? 10);
  switch (field.name.value) {
    case 'cities':
    case 'products':
      return listPages(w, field.name.value, page, pageSize);
    case 'city':
      walkOnce(w, 'cities', 'cities:byCode');
      return cityFields(w, fieldsOf(w, field.selectionSet));
    case 'sites': {
      const items = childFields(w, field, 'items');
      if (args.cityCode != null || args.enabledOnly === true) return siteFields(w, items, 'sitesWithPoints');
      const kind = items.some((f) => SITE_FIELDS_NEEDING_POINTS.includes(f.name.value)) ? 'sitesWithPoints' : 'sites';
      listPages(w, kind, page, pageSize);
      return siteFields(w, items, kind);
    }
    case 'site':
      lookup(w, `site:${String(args.code)}`);
      return siteFields(w, fieldsOf(w, field.selectionSet), 'detail');
    case 'product':
      lookup(w, `product:${String(args.goodsCode)}`);
      return productFields(w, fieldsOf(w, field.selectionSet));
    case 'sitesNear':
      return siteFields(w, childFields(w, field, 'site'), 'sitesWithPoints');
    case 'searchProducts':
      return productFields(w, fieldsOf(w, field.selectionSet));
    case 'node':
      return nodeField(w, field, String(args.id));
    // A subscription is priced per event: what resolving one event's selection costs, plus the
    // named sites only it may make the poller read each round (a walk of every site is shared by
    // all watchers, like the catalog index, and charged to none).
    case 'siteStock':
      w.calls.add(`watch:site:${String(args.code)}`);
      return siteFields(w, fieldsOf(w, field.selectionSet), 'detail');
    case 'productStock': {
      const fields = fieldsOf(w, field.selectionSet);
      const product = fields.filter((f) => f.name.value === 'product');
      if (product.length > 0) lookup(w, `product:${String(args.goodsCode)}`);
      productFields(w, product.flatMap((f) => fieldsOf(w, f.selectionSet)));
      return productFields(w, fields);
    }
    case 'stockAlerts': {
      const named = Array.isArray(args.siteCodes) && args.cityCode == null ? args.siteCodes.map(String) : undefined;
      for (const code of named ?? []) w.calls.add(`watch:site:${code}`);
      const source = named === undefined ? 'sitesWithPoints' : 'detail';
      siteFields(w, childFields(w, field, 'site'), source);
      pointFields(w, childFields(w, field, 'point'), source);
      return laneFields(w, childFields(w, field, 'lane').map((f) => f.name.value), source);
    }
  }
}

function nodeField(w: Walker, field: FieldNode, id: string): void {
  const decoded = decodeId(id);
  if (decoded === null) return;
  const [key] = decoded.keys;
  const selected = fieldsOf(w, field.selectionSet);
  if (decoded.type === 'Product') {
    lookup(w, `product:${key}`);
    return productFields(w, selected);
  }
  if (decoded.type === 'City') return walkOnce(w, 'cities', 'cities:byCode');
  lookup(w, `site:${key}`);
  if (decoded.type === 'Site') siteFields(w, selected, 'detail');
  else pointFields(w, selected, 'detail');
}

// Private: `Product.availability` lists index sites and points.
function productFields(w: Walker, fields: FieldNode[]): void {
  for (const field of fields.filter((f) => f.name.value === 'availability')) {
    siteFields(w, childFields(w, field, 'site'), 'sitesWithPoints');
    pointFields(w, childFields(w, field, 'point'), 'sitesWithPoints');
    laneFields(w, childFields(w, field, 'lane').map((f) => f.name.value), 'sitesWithPoints');
  }
}

// Private: `City.sites` lists index sites.
function cityFields(w: Walker, fields: FieldNode[]): void {
  for (const field of fields.filter((f) => f.name.value === 'sites')) siteFields(w, childFields(w, field, 'items'), 'sitesWithPoints');
}

function siteFields(w: Walker, fields: FieldNode[], source: SiteSource): void {
  for (const field of fields) {
    if (field.name.value === 'city') {
      if (source !== 'sitesWithPoints') walkOnce(w, 'sitesWithPoints');
      if (fieldsOf(w, field.selectionSet).some((f) => f.name.value === 'cityId')) walkOnce(w, 'cities', 'cities:byCode');
      cityFields(w, fieldsOf(w, field.selectionSet));
    }
    if (field.name.value === 'points') pointFields(w, fieldsOf(w, field.selectionSet), source);
  }
}

function pointFields(w: Walker, fields: FieldNode[], source: SiteSource): void {
  for (const field of fields) {
    if (field.name.value === 'site') siteFields(w, fieldsOf(w, field.selectionSet), source);
    if (field.name.value === 'cargoLanes') laneFields(w, fieldsOf(w, field.selectionSet).map((f) => f.name.value), source);
  }
}

function laneFields(w: Walker, lanes: string[], source: SiteSource): void {
  // Only list-with-points reports a lane's price; elsewhere it comes from the product.
  if (lanes.includes('product') || (lanes.includes('guidePrice') && source !== 'sitesWithPoints')) {
    walkOnce(w, 'products');
  }
}

// Private: the upstream pages behind one client page.
function listPages(w: Walker, kind: ListKind, page: number, pageSize: number): void {
  const cap = w.planner.facts(kind).cap ?? ASSUMED_CAP;
  if (pageSize <= cap) return lookup(w, `${kind}:${page}:${pageSize}`);
  const offset = (page - 1) * pageSize;
  for (let p = Math.floor(offset / cap) + 1; p <= Math.floor((offset + pageSize - 1) / cap) + 1; p += 1) {
    lookup(w, `${kind}:${p}:${cap}`);
  }
}

// Private: every page of a list not cached, unless the walk (or what is built from it) is.
function walkOnce(w: Walker, kind: ListKind, builtKey?: string): void {
  if (w.planner.isCached(`${kind}:walk`) || (builtKey !== undefined && w.planner.isCached(builtKey))) return;
  const { cap, total } = w.planner.facts(kind);
  const size = Math.min(cap ?? WALK_PAGE_SIZE, WALK_PAGE_SIZE);
  // As many pages as a walk would ask for (it stops at MAX_WALK_CALLS whatever `total` says: an
  // upstream answering a total of a billion must not make every estimate count ten million).
  const pages = total === undefined ? 1 : Math.min(MAX_WALK_CALLS, Math.max(1, Math.ceil(total / size)));
  for (let p = 1; p <= pages; p += 1) lookup(w, `${kind}:${p}:${size}`);
}

function lookup(w: Walker, key: string): void {
  if (!w.planner.isCached(key)) w.calls.add(key);
}

function argumentsOf(w: Walker, field: FieldNode): Record<string, unknown> {
  return Object.fromEntries((field.arguments ?? []).map((arg) => [arg.name.value, valueFromASTUntyped(arg.value, w.variables)]));
}

function childFields(w: Walker, field: FieldNode, child: string): FieldNode[] {
  return fieldsOf(w, field.selectionSet)
    .filter((f) => f.name.value === child)
    .flatMap((f) => fieldsOf(w, f.selectionSet));
}

function fieldsOf(w: Walker, selectionSet: FieldNode['selectionSet']): FieldNode[] {
  return fieldsIn(selectionSet, w.fragments);
}
