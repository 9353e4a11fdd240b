/**
 * The one table of argument rules: for every field of the schema that takes arguments, the rule
 * (values.ts) that checks them and turns them into what the resolver uses. The resolvers take
 * their arguments through it, and use-argument-checks.ts runs it over every field of an
 * operation before anything executes, so a bad argument anywhere costs no upstream call and is
 * refused the same way wherever it is. A field with arguments and no rule here fails a test
 * (test/e2e/protection/arguments-first.test.ts).
 */
import type { TimeReader } from '../../catalog/opening-hours.js';
import type {
  CitySitesArgs, ProductAvailabilityArgs, QueryCitiesArgs, QueryCityArgs, QueryNodeArgs, QueryProductArgs,
  QueryProductsArgs, QuerySearchProductsArgs, QuerySiteArgs, QuerySitesArgs, QuerySitesNearArgs, SiteIsOpenArgs,
  SubscriptionProductStockArgs, SubscriptionSiteStockArgs, SubscriptionStockAlertsArgs,
} from '../../generated/resolvers-types.js';
import {
  atArg, availabilityArgs, codeArg, codesArg, firstArg, geoArgs, nodeIdArg, optionalCodeArg, optionalTimeArg, pageArgs,
  radiusArg, textArg, thresholdArg,
} from './values.js';

/** What the rules need of the gateway's settings (the request context has both). */
export interface ArgumentSettings {
  /** `MAX_PAGE_SIZE`: the largest `pageSize`, and `first` of the index's lists. */
  maxPageSize: number;
  /** Reads times of day in the sites' time zone. */
  siteTime: TimeReader;
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
  'Query.site': ({ code }: QuerySiteArgs) => codeArg('code', code),
  'Query.products': (args: QueryProductsArgs, { maxPageSize }: ArgumentSettings) => pageArgs(args, maxPageSize),
  'Query.product': ({ goodsCode }: QueryProductArgs) => codeArg('goodsCode', goodsCode),
  'Query.sitesNear': (args: QuerySitesNearArgs, { maxPageSize, siteTime }: ArgumentSettings) => ({
    ...geoArgs(args.lat, args.lng),
    radiusKm: radiusArg(args.radiusKm ?? 5),
    first: firstArg(args.first, 20, maxPageSize),
    cityCode: optionalCodeArg('cityCode', args.cityCode),
    hasProduct: optionalCodeArg('hasProduct', args.hasProduct),
    openAt: optionalTimeArg('openAt', args.openAt, siteTime.read),
    enabledOnly: args.enabledOnly ?? true,
    inStockOnly: args.inStockOnly ?? true,
  }),
  'Query.searchProducts': (args: QuerySearchProductsArgs, { maxPageSize }: ArgumentSettings) => ({
    text: textArg('text', args.text),
    ipName: textArg('ipName', args.ipName),
    first: firstArg(args.first, 20, maxPageSize),
  }),
  'City.sites': (args: CitySitesArgs, { maxPageSize }: ArgumentSettings) => pageArgs(args, maxPageSize),
  'Site.isOpen': ({ at }: SiteIsOpenArgs, { siteTime }: ArgumentSettings) => atArg(at, siteTime),
  'Product.availability': (args: ProductAvailabilityArgs) => availabilityArgs(args),
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

/** A field's rule, for a caller that knows arguments only as the schema coerced them. */
export type ArgumentRule = (args: Record<string, unknown>, settings: ArgumentSettings) => unknown;

/** The rule of `Type.field`, if it takes arguments. */
export function argumentRuleOf(coordinate: string): ArgumentRule | undefined {
  return Object.hasOwn(ARGUMENT_RULES, coordinate)
    ? (ARGUMENT_RULES[coordinate as keyof typeof ARGUMENT_RULES] as ArgumentRule)
    : undefined;
}
