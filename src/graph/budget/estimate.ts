/**
 * Estimates, before it runs, the upstream calls an operation can cause under the gateway's own
 * plan: list pages, per-item lookups and the walks behind some fields, with keys and costs from
 * the table of operations (upstream/operations.ts). Cached calls and repeats count nothing; a
 * list not seen yet counts one call, and the hard stop covers what that misses. Fields answered
 * from the catalog index cost nothing: the index is shared work, charged to no one.
 */
import {
  valueFromASTUntyped, type FieldNode, type FragmentDefinitionNode, type GraphQLField, type GraphQLSchema, type OperationDefinitionNode,
} from 'graphql';
import { MAX_WALK_CALLS } from '../../data/page-range.js';
import { CITIES_BY_CODE_KEY } from '../../data/sources.js';
import { siteKey } from '../../live/watch-loop.js';
import { DETAILS, LISTS, type DetailKind, type ListKind } from '../../upstream/operations.js';
import { decodeId } from '../ids.js';
import { FIELDS_NEEDING_POINTS } from '../resolvers/query.js';
import { fieldsOf as fieldsIn } from '../selection.js';
import { listPages, lookup, windowPages, type Plan, type Planner } from './pages.js';

export type { Planner } from './pages.js';

/** Site sources, for what a site's fields cost. */
type SiteSource = 'sites' | 'sitesWithPoints' | 'detail';

interface Walker extends Plan {
  fragments: Record<string, FragmentDefinitionNode>;
  variables: Record<string, unknown>;
}

/** What a root field costs, given its arguments (the schema's defaults where left out). */
type RootPricing = (w: Walker, field: FieldNode, args: Record<string, unknown>) => void;
export function estimateUpstreamCalls(
  operation: OperationDefinitionNode,
  fragments: Record<string, FragmentDefinitionNode>,
  variables: Record<string, unknown>,
  planner: Planner,
  schema: GraphQLSchema,
): number {
  const walker: Walker = { planner, fragments, variables, calls: new Map() };
  const root = schema.getRootType(operation.operation);
  for (const field of fieldsOf(walker, operation.selectionSet)) {
    const coordinate = `${root?.name ?? ''}.${field.name.value}`;
    // Only introspection is missing from the table: validation refused any other field.
    if (Object.hasOwn(ROOT_FIELDS, coordinate)) ROOT_FIELDS[coordinate]!(walker, field, argumentsOf(walker, field, root?.getFields()[field.name.value]));
  }
  let calls = 0;
  for (const cost of walker.calls.values()) calls += cost;
  return calls;
}

const list = (kind: ListKind): RootPricing => (w, _, args) => listPages(w, kind, Number(args.page), Number(args.pageSize));

/** Every root field of the schema, and what it costs. */
export const ROOT_FIELDS: Record<string, RootPricing> = {
  'Query.cities': list('cities'),
  'Query.products': list('products'),
  'Query.city': (w, field) => {
    walkOnce(w, 'cities', CITIES_BY_CODE_KEY);
    cityFields(w, fieldsOf(w, field.selectionSet));
  },
  'Query.sites': (w, field, args) => {
    const items = childFields(w, field, 'items');
    if (args.cityCode != null || args.enabledOnly === true) return siteFields(w, items, 'sitesWithPoints');
    const kind = items.some((f) => FIELDS_NEEDING_POINTS.includes(f.name.value)) ? 'sitesWithPoints' : 'sites';
    listPages(w, kind, Number(args.page), Number(args.pageSize));
    siteFields(w, items, kind);
  },
  'Query.site': (w, field, args) => {
    detail(w, 'site', String(args.code));
    siteFields(w, fieldsOf(w, field.selectionSet), 'detail');
  },
  'Query.product': (w, field, args) => {
    detail(w, 'product', String(args.goodsCode));
    productFields(w, fieldsOf(w, field.selectionSet));
  },
  'Query.sitesNear': (w, field) => siteFields(w, childFields(w, field, 'site'), 'sitesWithPoints'),
  'Query.searchProducts': (w, field) => productFields(w, fieldsOf(w, field.selectionSet)),
  // Connections cost what their window reads: the pages of its size that cover it (at most two).
  'Query.sitesConnection': (w, field, args) => {
    const nodes = nodeFields(w, field);
    if (args.cityCode != null || args.enabledOnly === true) return siteFields(w, nodes, 'sitesWithPoints');
    const kind = nodes.some((f) => FIELDS_NEEDING_POINTS.includes(f.name.value)) ? 'sitesWithPoints' : 'sites';
    windowPages(w, kind, 'Query.sitesConnection', args);
    siteFields(w, nodes, kind);
  },
  'Query.productsConnection': (w, _, args) => windowPages(w, 'products', 'Query.productsConnection', args),
  'Query.sitesNearConnection': (w, field) => siteFields(w, nodeFields(w, field), 'sitesWithPoints'),
  'Query.searchProductsConnection': (w, field) => productFields(w, nodeFields(w, field)),
  'Query.node': (w, field, args) => nodeField(w, field, String(args.id)),
  // Priced per event: one event's selection, plus the named sites only it makes the poller read.
  'Subscription.siteStock': (w, field, args) => {
    watch(w, String(args.code));
    siteFields(w, fieldsOf(w, field.selectionSet), 'detail');
  },
  'Subscription.productStock': (w, field, args) => {
    const fields = fieldsOf(w, field.selectionSet);
    const product = fields.filter((f) => f.name.value === 'product');
    if (product.length > 0) detail(w, 'product', String(args.goodsCode));
    productFields(w, product.flatMap((f) => fieldsOf(w, f.selectionSet)));
    productFields(w, fields);
  },
  'Subscription.stockAlerts': (w, field, args) => {
    const named = Array.isArray(args.siteCodes) && args.cityCode == null ? args.siteCodes.map(String) : undefined;
    for (const code of named ?? []) watch(w, code);
    const source = named === undefined ? 'sitesWithPoints' : 'detail';
    siteFields(w, childFields(w, field, 'site'), source);
    pointFields(w, childFields(w, field, 'point'), source);
    laneFields(w, childFields(w, field, 'lane').map((f) => f.name.value), source);
  },
};

function nodeField(w: Walker, field: FieldNode, id: string): void {
  const decoded = decodeId(id);
  if (decoded === null) return;
  const [key] = decoded.keys;
  const selected = fieldsOf(w, field.selectionSet);
  if (decoded.type === 'Product') {
    detail(w, 'product', String(key));
    return productFields(w, selected);
  }
  if (decoded.type === 'City') return walkOnce(w, 'cities', CITIES_BY_CODE_KEY);
  detail(w, 'site', String(key));
  if (decoded.type === 'Site') siteFields(w, selected, 'detail');
  else pointFields(w, selected, 'detail');
}

// Private: `Product.availability` lists index sites and points.
function productFields(w: Walker, fields: readonly FieldNode[]): void {
  const lists = [
    ...fields.filter((f) => f.name.value === 'availability'),
    ...fields.filter((f) => f.name.value === 'availabilityConnection').flatMap((f) => childFields(w, f, 'edges')).filter((f) => f.name.value === 'node'),
  ];
  for (const field of lists) {
    siteFields(w, childFields(w, field, 'site'), 'sitesWithPoints');
    pointFields(w, childFields(w, field, 'point'), 'sitesWithPoints');
    laneFields(w, childFields(w, field, 'lane').map((f) => f.name.value), 'sitesWithPoints');
  }
}

// Private: `City.sites` lists index sites.
function cityFields(w: Walker, fields: readonly FieldNode[]): void {
  for (const field of fields.filter((f) => f.name.value === 'sites')) siteFields(w, childFields(w, field, 'items'), 'sitesWithPoints');
  for (const field of fields.filter((f) => f.name.value === 'sitesConnection')) siteFields(w, nodeFields(w, field), 'sitesWithPoints');
}

function siteFields(w: Walker, fields: readonly FieldNode[], source: SiteSource): void {
  for (const field of fields) {
    if (field.name.value === 'city') {
      if (source !== 'sitesWithPoints') walkOnce(w, 'sitesWithPoints');
      if (fieldsOf(w, field.selectionSet).some((f) => f.name.value === 'cityId')) walkOnce(w, 'cities', CITIES_BY_CODE_KEY);
      cityFields(w, fieldsOf(w, field.selectionSet));
    }
    if (field.name.value === 'points') pointFields(w, fieldsOf(w, field.selectionSet), source);
  }
}

function pointFields(w: Walker, fields: readonly FieldNode[], source: SiteSource): void {
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

// Private: every page of a list not cached, unless the walk (or what is built from it) is.
function walkOnce(w: Walker, kind: ListKind, builtKey?: string): void {
  const { walkKey, walkPageSize, key, cost } = LISTS[kind];
  if (w.planner.isCached(walkKey) || (builtKey !== undefined && w.planner.isCached(builtKey))) return;
  const { cap, total } = w.planner.facts(kind);
  const size = Math.min(cap ?? walkPageSize, walkPageSize);
  // As many pages as a walk would ask for, bounded as the walk is, whatever `total` says.
  const pages = total === undefined ? 1 : Math.min(MAX_WALK_CALLS, Math.max(1, Math.ceil(total / size)));
  for (let p = 1; p <= pages; p += 1) lookup(w, key(p, size), cost);
}

function detail(w: Walker, kind: DetailKind, code: string): void {
  lookup(w, DETAILS[kind].key(code), DETAILS[kind].cost);
}

// Private: a site the poller reads each round for this subscriber alone: one detail a round.
function watch(w: Walker, code: string): void {
  w.calls.set(`watch:${siteKey(code)}`, DETAILS.site.cost);
}

// Private: the field's arguments as given, and the schema's defaults of those left out.
function argumentsOf(w: Walker, field: FieldNode, definition: GraphQLField<unknown, unknown> | undefined): Record<string, unknown> {
  const given: Record<string, unknown> = Object.fromEntries(
    (field.arguments ?? []).map((arg) => [arg.name.value, valueFromASTUntyped(arg.value, w.variables)]),
  );
  for (const arg of definition?.args ?? []) given[arg.name] ??= arg.defaultValue;
  return given;
}

// Private: the fields asked of a connection's nodes.
function nodeFields(w: Walker, field: FieldNode): FieldNode[] {
  return childFields(w, field, 'edges').filter((f) => f.name.value === 'node').flatMap((f) => fieldsOf(w, f.selectionSet));
}

function childFields(w: Walker, field: FieldNode, child: string): FieldNode[] {
  return fieldsOf(w, field.selectionSet)
    .filter((f) => f.name.value === child)
    .flatMap((f) => fieldsOf(w, f.selectionSet));
}

function fieldsOf(w: Walker, selectionSet: FieldNode['selectionSet']): readonly FieldNode[] {
  return fieldsIn(selectionSet, w.fragments);
}
