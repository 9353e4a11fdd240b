/**
 * Every field that reaches the upstream, bound once to what it calls: the operation of the table
 * (upstream/operations.ts) and how often, per client page or window of a list, once per operation
 * (a lookup by an argument, the walk of a whole list), or once per parent record. The upstream
 * budget's estimate (budget/estimate.ts) is derived from this table alone, the plain site lists
 * choose between themselves by it, and a field bound to a list by its parent's code, or to a
 * lookup by a code argument, gets its resolver (and argument rule) from it where none is written.
 * test/unit/graph/budget/pricing.test.ts fails for a field that reaches the upstream undeclared.
 */
import type { GraphQLFieldResolver } from 'graphql';
import { CITIES_BY_CODE_KEY } from '../data/sources.js';
import {
  carriedBy, CHILD_LISTS, type Carried, type ChildKind, type DetailKind, type ListKind,
} from '../upstream/operations.js';
import { codeArg } from './arguments/values.js';
import type { GatewayContext } from './context.js';
import type { NodeType } from './ids.js';

type Args = Record<string, unknown>;

/** The operation whose records are at a place in the answer: what they carry follows from it. */
export type Origin = ListKind | DetailKind | ChildKind;

/** Fields answered from the catalog index: shared work, charged to no one; its records are list-with-points' and the product list's. */
interface FromIndex {
  when(args: Args): boolean;
  yields: ListKind;
}

export type Binding =
  /** The client page (`page`, `pageSize`) or window of the first list whose records, at `at`, carry what is selected there. */
  | { per: 'page' | 'window'; lists: readonly [ListKind, ...ListKind[]]; at: readonly string[]; index?: FromIndex }
  /** One record, by the code in argument `arg`. */
  | { per: 'lookup'; detail: DetailKind; arg: string }
  /** The object behind a global id: its type's binding, given the id's first key as `code`. */
  | { per: 'id'; of: Record<NodeType, Binding> }
  /** The whole list, once per operation, unless the parent carries `unless`; `built`: the key of what is built from it. */
  | { per: 'walk'; list: ListKind; built?: string; unless?: Carried }
  /**
   * Records of `list` by code, for each batch of parents (one per place in the document), unless
   * the parent carries `unless`: a detail per record not cached, or the list's walk when that is
   * fewer calls, so at most the walk's calls a batch.
   */
  | { per: 'batch'; list: ListKind; unless?: Carried }
  /** One call per parent record, by the parent's `code`, unless the parent carries `unless`. */
  | { per: 'parent'; operation: DetailKind | ChildKind; unless?: Carried }
  /** The catalog index alone. */
  | { per: 'index'; yields: ListKind }
  /** The live poller reads each site named by `codes` once a round for this subscriber; none named: the index's sites. */
  | { per: 'watch'; detail: DetailKind; codes(args: Args): string[] | undefined; yields: ListKind };

const INDEX_SITES: Binding = { per: 'index', yields: 'sitesWithPoints' };
const INDEX_PRODUCTS: Binding = { per: 'index', yields: 'products' };
/** With `cityCode` or `enabledOnly: true`, the site lists are answered from the index. */
const FILTERED: FromIndex = { when: (args) => args.cityCode != null || args.enabledOnly === true, yields: 'sitesWithPoints' };
const SITE_LISTS = ['sites', 'sitesWithPoints'] as const;
const PRODUCTS_BY_CODE: Binding = { per: 'batch', list: 'products' };
const CITIES_WALK: Binding = { per: 'walk', list: 'cities', built: CITIES_BY_CODE_KEY };

/** Every field that reaches the upstream, by coordinate. */
export const BINDINGS: Readonly<Record<string, Binding>> = {
  'Query.cities': { per: 'page', lists: ['cities'], at: ['items'] },
  'Query.products': { per: 'page', lists: ['products'], at: ['items'] },
  'Query.sites': { per: 'page', lists: SITE_LISTS, at: ['items'], index: FILTERED },
  'Query.sitesConnection': { per: 'window', lists: SITE_LISTS, at: ['edges', 'node'], index: FILTERED },
  'Query.productsConnection': { per: 'window', lists: ['products'], at: ['edges', 'node'] },
  'Query.city': CITIES_WALK,
  'Query.site': { per: 'lookup', detail: 'site', arg: 'code' },
  'Query.product': { per: 'lookup', detail: 'product', arg: 'goodsCode' },
  'Query.node': {
    per: 'id',
    of: {
      City: CITIES_WALK,
      Site: { per: 'lookup', detail: 'site', arg: 'code' },
      Point: { per: 'lookup', detail: 'site', arg: 'code' },
      Product: { per: 'lookup', detail: 'product', arg: 'code' },
    },
  },
  'Query.sitesNear': INDEX_SITES,
  'Query.sitesNearConnection': INDEX_SITES,
  'Query.searchProducts': INDEX_PRODUCTS,
  'Query.searchProductsConnection': INDEX_PRODUCTS,
  'Subscription.siteStock': { per: 'watch', detail: 'site', codes: (args) => [String(args.code)], yields: 'sitesWithPoints' },
  'Subscription.productStock': INDEX_SITES,
  'Subscription.stockAlerts': {
    per: 'watch', detail: 'site', yields: 'sitesWithPoints',
    codes: (args) => (Array.isArray(args.siteCodes) && args.cityCode == null ? args.siteCodes.map(String) : undefined),
  },
  'ProductStockUpdate.product': { per: 'parent', operation: 'product' },
  'City.cityId': { ...CITIES_WALK, unless: 'cityId' },
  'City.sites': INDEX_SITES,
  'City.sitesConnection': INDEX_SITES,
  // list-with-points says a site's city; other sources need the walk it is learnt from.
  'Site.city': { per: 'walk', list: 'sitesWithPoints', unless: 'city' },
  'Site.points': { per: 'parent', operation: 'site', unless: 'points' },
  'Site.stockSummary': { per: 'parent', operation: 'site', unless: 'points' },
  'CargoLane.product': PRODUCTS_BY_CODE,
  // Only list-with-points reports a lane's price; elsewhere it is the product's.
  'CargoLane.guidePrice': { ...PRODUCTS_BY_CODE, unless: 'lanePrices' },
  'Product.availability': INDEX_SITES,
  'Product.availabilityConnection': INDEX_SITES,
  'Product.totalStock': INDEX_SITES,
};

/** Whether records of `origin` hold what `binding` would call for (no origin: nothing known, so no). */
export function carries(origin: Origin | undefined, binding: Binding): boolean {
  const unless = 'unless' in binding ? binding.unless : undefined;
  return unless !== undefined && origin !== undefined && carriedBy(origin).includes(unless);
}

/** The first of `lists` whose records carry what the fields `selects` of `type` need: the last when none does. */
export function listFor<K extends ListKind>(lists: readonly [K, ...K[]], type: string, selects: (field: string) => boolean): K {
  const needed = Object.entries(BINDINGS)
    .filter(([coordinate, binding]) => 'unless' in binding && coordinate.startsWith(`${type}.`) && selects(coordinate.slice(type.length + 1)))
    .map(([, binding]) => binding);
  return lists.find((list) => needed.every((binding) => carries(list, binding))) ?? lists.at(-1)!;
}

type Resolver = GraphQLFieldResolver<{ code: string }, GatewayContext, Args>;

/**
 * Resolvers the bindings give, by type and field (those written in resolvers/ win): a field bound
 * to a list by its parent's code loads the parent's records, a lookup its record by the code
 * argument (checked by `boundRuleOf`), each through the request's loaders.
 */
export function boundResolvers(): Record<string, Record<string, Resolver>> {
  const resolvers: Record<string, Record<string, Resolver>> = {};
  for (const [coordinate, binding] of Object.entries(BINDINGS)) {
    const [type, field] = coordinate.split('.') as [string, string];
    if (binding.per === 'parent' && Object.hasOwn(CHILD_LISTS, binding.operation)) {
      const operation = CHILD_LISTS[binding.operation as ChildKind];
      (resolvers[type] ??= {})[field] = (parent, _, { loaders }) => loaders.children(operation).load(parent.code);
    } else if (binding.per === 'lookup') {
      const rule = boundRuleOf(coordinate)!;
      (resolvers[type] ??= {})[field] = (_, args, { loaders }) => loaders.byCode(binding.detail).load(rule(args));
    }
  }
  return resolvers;
}

/** The argument rule a lookup's binding gives it: its code argument, checked as any code. */
export function boundRuleOf(coordinate: string): ((args: Args) => string) | undefined {
  const binding = Object.hasOwn(BINDINGS, coordinate) ? BINDINGS[coordinate] : undefined;
  if (binding?.per !== 'lookup') return undefined;
  return (args) => codeArg(binding.arg, String(args[binding.arg]));
}
