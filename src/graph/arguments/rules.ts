/**
 * The one table of argument rules: for every field that takes arguments, the rule that checks
 * them and makes them what the resolver uses. The checks run it over every field before anything
 * executes, so a bad argument costs no upstream call and is refused the same way everywhere.
 */
import type { TimeReader } from '../../catalog/opening-hours.js';
import type {
  CitySitesArgs, CitySitesConnectionArgs, ProductAvailabilityArgs, ProductAvailabilityConnectionArgs, QueryProductsConnectionArgs,
  QuerySearchProductsConnectionArgs, QuerySitesConnectionArgs, QuerySitesNearConnectionArgs, QueryCitiesArgs, QueryCityArgs, QueryNodeArgs, QueryProductArgs,
  QueryProductsArgs, QuerySearchProductsArgs, QuerySitesArgs, QuerySitesNearArgs, SiteIsOpenArgs,
  SubscriptionProductStockArgs, SubscriptionSiteStockArgs, SubscriptionStockAlertsArgs,
} from '../../generated/resolvers-types.js';
import {
  atArg, availabilityArgs, codeArg, codesArg, firstArg, geoArgs, nodeIdArg, optionalCodeArg, optionalTimeArg, pageArgs,
  radiusArg, textArg, thresholdArg,
} from './values.js';
import { boundRuleOf } from '../bindings.js';
import { listOf, type Cursors } from './cursors.js';
import { windowArgs, type WindowInput } from './window.js';

/** What the rules need of the gateway's settings (the request context has both). */
export interface ArgumentSettings {
  /** The largest `pageSize`, and `first` of the index's lists. */
  maxPageSize: number;
  /** Reads times of day in the sites' time zone. */
  siteTime: TimeReader;
  /** Signs and checks the connections' cursors (cursors.ts). */
  cursors: Cursors;
}

/** The rules, by `Type.field`. */
export const ARGUMENT_RULES = {
  'Query.node': ({ id }: QueryNodeArgs) => nodeIdArg(id),
  'Query.cities': (args: QueryCitiesArgs, { maxPageSize }: ArgumentSettings) => pageArgs(args, maxPageSize),
  'Query.city': ({ code }: QueryCityArgs) => codeArg('code', code),
  'Query.sites': (args: QuerySitesArgs, { maxPageSize }: ArgumentSettings) => ({
    ...pageArgs(args, maxPageSize),
    cityCode: optionalCodeArg('cityCode', args.cityCode),
    enabledOnly: args.enabledOnly === true,
  }),
  'Query.products': (args: QueryProductsArgs, { maxPageSize }: ArgumentSettings) => pageArgs(args, maxPageSize),
  'Query.product': ({ goodsCode }: QueryProductArgs) => codeArg('goodsCode', goodsCode),
  'Query.sitesNear': (args: QuerySitesNearArgs, settings: ArgumentSettings) => ({
    ...nearArgs(args, settings),
    first: firstArg(args.first, 20, settings.maxPageSize),
  }),
  'Query.searchProducts': (args: QuerySearchProductsArgs, { maxPageSize }: ArgumentSettings) => ({
    ...searchArgs(args),
    first: firstArg(args.first, 20, maxPageSize),
  }),
  'Query.sitesConnection': (args: QuerySitesConnectionArgs, settings: ArgumentSettings) =>
    connectionArgs('Query.sitesConnection', args, settings, { cityCode: optionalCodeArg('cityCode', args.cityCode), enabledOnly: args.enabledOnly === true }),
  'Query.productsConnection': (args: QueryProductsConnectionArgs, settings: ArgumentSettings) =>
    connectionArgs('Query.productsConnection', args, settings, {}),
  'Query.sitesNearConnection': (args: QuerySitesNearConnectionArgs, settings: ArgumentSettings) =>
    connectionArgs('Query.sitesNearConnection', args, settings, nearArgs(args, settings)),
  'Query.searchProductsConnection': (args: QuerySearchProductsConnectionArgs, settings: ArgumentSettings) =>
    connectionArgs('Query.searchProductsConnection', args, settings, searchArgs(args)),
  'City.sites': (args: CitySitesArgs, { maxPageSize }: ArgumentSettings) => pageArgs(args, maxPageSize),
  // Nested connections: the resolver passes its parent's key; before execution it is not known.
  'City.sitesConnection': (args: CitySitesConnectionArgs, settings: ArgumentSettings, city?: string) =>
    connectionArgs('City.sitesConnection', args, settings, {}, city),
  'Site.isOpen': ({ at }: SiteIsOpenArgs, { siteTime }: ArgumentSettings) => atArg(at, siteTime),
  'Product.availability': (args: ProductAvailabilityArgs) => availabilityArgs(args),
  'Product.availabilityConnection': (args: ProductAvailabilityConnectionArgs, settings: ArgumentSettings, goodsCode?: string) => {
    // `availability`'s own filters (enabledOnly among them), without its `first`.
    const { first: _first, ...filters } = availabilityArgs({ ...args, first: undefined });
    return connectionArgs('Product.availabilityConnection', args, settings, filters, goodsCode);
  },
  'Subscription.siteStock': ({ code }: SubscriptionSiteStockArgs) => codeArg('code', code),
  'Subscription.productStock': (args: SubscriptionProductStockArgs) => {
    const { near, radiusKm, cityCode, enabledOnly } = availabilityArgs(args);
    return { goodsCode: codeArg('goodsCode', args.goodsCode), near, radiusKm, cityCode, enabledOnly };
  },
  'Subscription.stockAlerts': (args: SubscriptionStockAlertsArgs, { maxPageSize }: ArgumentSettings) => ({
    siteCodes: args.siteCodes === null || args.siteCodes === undefined ? undefined : codesArg('siteCodes', args.siteCodes, maxPageSize),
    cityCode: optionalCodeArg('cityCode', args.cityCode),
    threshold: thresholdArg(args.threshold ?? 0),
  }),
};

/** `sitesNear`'s filters, checked (its connection's too). */
function nearArgs(args: Omit<QuerySitesNearArgs, 'first'>, { siteTime }: ArgumentSettings) {
  return {
    ...geoArgs(args.lat, args.lng),
    radiusKm: radiusArg(args.radiusKm ?? 5),
    cityCode: optionalCodeArg('cityCode', args.cityCode),
    hasProduct: optionalCodeArg('hasProduct', args.hasProduct),
    openAt: optionalTimeArg('openAt', args.openAt, siteTime.read),
    enabledOnly: args.enabledOnly ?? true,
    inStockOnly: args.inStockOnly ?? true,
  };
}

/** `searchProducts`' filters, checked (its connection's too). */
function searchArgs(args: { text?: string | null; ipName?: string | null }) {
  return { text: textArg('text', args.text), ipName: textArg('ipName', args.ipName) };
}

/** A connection's filters and window; cursors are checked against their list once `parent` is known. */
function connectionArgs<F extends object>(coordinate: string, args: WindowInput, settings: ArgumentSettings, filters: F, parent?: string) {
  const nested = !coordinate.startsWith('Query.');
  const list = nested && parent === undefined ? undefined : listOf(coordinate, filters, parent);
  return { ...filters, window: windowArgs(coordinate, args, settings, list), list: list ?? '' };
}

/** A field's rule, for a caller that knows arguments only as the schema coerced them. */
export type ArgumentRule = (args: Record<string, unknown>, settings: ArgumentSettings) => unknown;

/** The rule of `Type.field`, if it takes arguments: written here, or given by its binding (graph/bindings.ts). */
export function argumentRuleOf(coordinate: string): ArgumentRule | undefined {
  return Object.hasOwn(ARGUMENT_RULES, coordinate)
    ? (ARGUMENT_RULES[coordinate as keyof typeof ARGUMENT_RULES] as ArgumentRule)
    : boundRuleOf(coordinate);
}
