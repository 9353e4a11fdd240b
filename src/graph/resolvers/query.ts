import type { GraphQLResolveInfo } from 'graphql';
import { isEnabled, searchProducts, sitesNear } from '../../catalog/catalog.js';
import { isOpenAt } from '../../catalog/opening-hours.js';
import type { QueryResolvers } from '../../generated/resolvers-types.js';
import type { SiteRecord } from '../../upstream/records.js';
import { ARGUMENT_RULES as RULES } from '../arguments/rules.js';
import { productsCatalog, sitesCatalog } from './catalog.js';
import { resolveNode, tagOfNode } from './node.js';
import { pageOf } from './page.js';
import { selectsPath } from '../selection.js';
import { listFor } from '../bindings.js';
import type { GatewayContext } from '../context.js';

/** From this many sites, a page's lanes hold more products than the product list has pages, as a rule. */
const PREFETCH_MIN_SITES = 5;

/** The upstream site lists, the plain one first (graph/bindings.ts `Query.sites`). */
const SITE_LISTS = ['sites', 'sitesWithPoints'] as const;

/** The sites `cityCode` and `enabledOnly` leave, from the catalog index (`sites` and `sitesConnection`). */
export async function filteredSites(context: GatewayContext, field: string, cityCode: string | undefined, enabledOnly: boolean | undefined) {
  const catalog = await sitesCatalog(context, field);
  const sites = cityCode === undefined ? catalog.enabledSites : (catalog.sitesByCity.get(cityCode) ?? []);
  return enabledOnly && cityCode !== undefined ? sites.filter(isEnabled) : sites;
}

/**
 * The upstream site list that answers `size` sites selected under `items`: the plain list when it
 * suffices, else list-with-points (by what the fields' bindings need), never a detail call per site. When many lanes' products will
 * be wanted, the product list's size is learnt alongside the sites.
 */
export function siteList(context: GatewayContext, info: GraphQLResolveInfo, items: readonly string[], size: number): 'sites' | 'sitesWithPoints' {
  if (size >= PREFETCH_MIN_SITES && selectsPath(info, [...items, 'points', 'cargoLanes', 'product'])) context.loaders.prefetchProducts(size);
  return listFor(SITE_LISTS, 'Site', (field) => selectsPath(info, [...items, field]));
}

/** Whether a site qualifies for `sitesNear` (and its connection), besides its distance. */
export function acceptsNear({ cityCode, openAt, enabledOnly }: { cityCode?: string; openAt?: number; enabledOnly: boolean }) {
  return (site: SiteRecord) =>
    (!enabledOnly || isEnabled(site)) &&
    (cityCode === undefined || site.cityCode === cityCode) &&
    (openAt === undefined || isOpenAt(site.openTime, site.closeTime, openAt) === true);
}

export const Query: QueryResolvers = {
  node(_, args, { loaders, scope }) {
    const decoded = RULES['Query.node'](args);
    scope.tag(...tagOfNode(decoded));
    return resolveNode(decoded, loaders);
  },

  async cities(_, args, context) {
    const { page, pageSize } = RULES['Query.cities'](args, context);
    const { loaders } = context;
    return { ...(await loaders.page('cities', page, pageSize)), page, pageSize };
  },

  city: (_, args, { loaders }) => loaders.cityByCode.load(RULES['Query.city'](args)),

  async sites(_, args, context, info) {
    const { page, pageSize, cityCode, enabledOnly } = RULES['Query.sites'](args, context);
    if (cityCode !== undefined || enabledOnly) {
      return pageOf(await filteredSites(context, 'sites(cityCode, enabledOnly)', cityCode, enabledOnly), page, pageSize);
    }
    return { ...(await context.loaders.page(siteList(context, info, ['items'], pageSize), page, pageSize)), page, pageSize };
  },

  async products(_, args, context) {
    const { page, pageSize } = RULES['Query.products'](args, context);
    const { loaders } = context;
    return { ...(await loaders.page('products', page, pageSize)), page, pageSize };
  },

  // At once when the cache holds it fresh: no batch, no promise.
  product: (_, args, { loaders }) => loaders.product(RULES['Query.product'](args)),

  async sitesNear(_, args, context) {
    const { lat, lng, radiusKm, first, cityCode, hasProduct, openAt, enabledOnly, inStockOnly } = RULES['Query.sitesNear'](args, context);
    const catalog = await sitesCatalog(context, 'sitesNear');
    return sitesNear(catalog, {
      lat, lng, radiusKm, first, hasProduct, inStockOnly,
      accepts: acceptsNear({ cityCode, openAt, enabledOnly }),
    });
  },

  async searchProducts(_, args, context) {
    const { text, ipName, first } = RULES['Query.searchProducts'](args, context);
    return searchProducts(await productsCatalog(context, 'searchProducts'), text, ipName, first);
  },
};
