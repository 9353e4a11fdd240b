import { isEnabled, searchProducts, sitesNear } from '../../catalog/catalog.js';
import { isOpenAt } from '../../catalog/opening-hours.js';
import type { QueryResolvers } from '../../generated/resolvers-types.js';
import type { SiteRecord } from '../../upstream/records.js';
import { ARGUMENT_RULES as RULES } from '../arguments/rules.js';
import { productsCatalog, sitesCatalog } from './catalog.js';
import { resolveNode } from './node.js';
import { pageOf } from './page.js';
import { selectedFieldsOf, selectsPath } from '../selection.js';

/** From this many sites, a page's lanes hold more products than the product list has pages, as a rule. */
const PREFETCH_MIN_SITES = 5;
const LANE_PRODUCTS = ['items', 'points', 'cargoLanes', 'product'];

/** Site fields that only list-with-points (or a per-site lookup) can answer (the budget's estimate plans by them too). */
export const FIELDS_NEEDING_POINTS = ['points', 'city', 'stockSummary'];

/** Whether a site qualifies for `sitesNear` (and its connection), besides its distance. */
export function acceptsNear({ cityCode, openAt, enabledOnly }: { cityCode?: string; openAt?: number; enabledOnly: boolean }) {
  return (site: SiteRecord) =>
    (!enabledOnly || isEnabled(site)) &&
    (cityCode === undefined || site.cityCode === cityCode) &&
    (openAt === undefined || isOpenAt(site.openTime, site.closeTime, openAt) === true);
}

export const Query: QueryResolvers = {
  node: (_, args, { loaders }) => resolveNode(RULES['Query.node'](args), loaders),

  async cities(_, args, context) {
    const { page, pageSize } = RULES['Query.cities'](args, context);
    const { loaders } = context;
    return { ...(await loaders.page('cities', page, pageSize)), page, pageSize };
  },

  city: (_, args, { loaders }) => loaders.cityByCode.load(RULES['Query.city'](args)),

  async sites(_, args, context, info) {
    const { loaders } = context;
    const { page, pageSize, cityCode, enabledOnly } = RULES['Query.sites'](args, context);
    if (cityCode !== undefined || enabledOnly) {
      const catalog = await sitesCatalog(context, 'sites(cityCode, enabledOnly)');
      const sites = cityCode === undefined ? catalog.enabledSites : (catalog.sitesByCity.get(cityCode) ?? []);
      return pageOf(enabledOnly && cityCode !== undefined ? sites.filter(isEnabled) : sites, page, pageSize);
    }
    // One upstream call either way: the plain list when it suffices, else list-with-points
    // (never a detail call per site).
    const selected = selectedFieldsOf(info, 'items');
    const kind = FIELDS_NEEDING_POINTS.some((field) => selected.has(field)) ? 'sitesWithPoints' : 'sites';
    // Many lanes' products will be wanted: learn the product list's size alongside the sites,
    // not after them, so the plan for products is ready when the lanes are.
    if (pageSize >= PREFETCH_MIN_SITES && selectsPath(info, LANE_PRODUCTS)) loaders.prefetchProducts(pageSize);
    return { ...(await loaders.page(kind, page, pageSize)), page, pageSize };
  },

  site: (_, args, { loaders }) => loaders.siteByCode.load(RULES['Query.site'](args)),

  async products(_, args, context) {
    const { page, pageSize } = RULES['Query.products'](args, context);
    const { loaders } = context;
    return { ...(await loaders.page('products', page, pageSize)), page, pageSize };
  },

  product: (_, args, { loaders }) => loaders.productByGoodsCode.load(RULES['Query.product'](args)),

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
