import { isEnabled, searchProducts, sitesNear } from '../catalog/catalog.js';
import { isOpenAt } from '../catalog/opening-hours.js';
import type { QueryResolvers } from '../generated/resolvers-types.js';
import type { SiteRecord } from '../upstream/records.js';
import {
  codeArg, firstArg, geoArgs, optionalCodeArg, pageArgs, radiusArg, textArg, timeArg,
} from './arguments.js';
import { productsCatalog, sitesCatalog } from './catalog.js';
import { resolveNode } from './node.js';
import { pageOf } from './page.js';
import { selectedFieldsOf, selectsPath } from './selection.js';

/** From this many sites, a page's lanes hold more products than the product list has pages, as a rule. */
const PREFETCH_MIN_SITES = 5;
const LANE_PRODUCTS = ['items', 'points', 'cargoLanes', 'product'];

/** Site fields that only list-with-points (or a per-site lookup) can answer. */
const FIELDS_NEEDING_POINTS = ['points', 'city', 'stockSummary'];

export const Query: QueryResolvers = {
  node: (_, { id }, { loaders }) => resolveNode(id, loaders),

  async cities(_, args, { loaders, maxPageSize }) {
    const { page, pageSize } = pageArgs(args, maxPageSize);
    return { ...(await loaders.page('cities', page, pageSize)), page, pageSize };
  },

  city: (_, { code }, { loaders }) => loaders.cityByCode.load(codeArg('code', code)),

  async sites(_, args, context, info) {
    const { loaders, maxPageSize } = context;
    const { page, pageSize } = pageArgs(args, maxPageSize);
    const cityCode = optionalCodeArg('cityCode', args.cityCode);
    if (cityCode !== undefined || args.enabledOnly === true) {
      const catalog = await sitesCatalog(context, 'sites(cityCode, enabledOnly)');
      const sites = cityCode === undefined ? catalog.enabledSites : (catalog.sitesByCity.get(cityCode) ?? []);
      return pageOf(args.enabledOnly === true && cityCode !== undefined ? sites.filter(isEnabled) : sites, page, pageSize);
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

  site: (_, { code }, { loaders }) => loaders.siteByCode.load(codeArg('code', code)),

  async products(_, args, { loaders, maxPageSize }) {
    const { page, pageSize } = pageArgs(args, maxPageSize);
    return { ...(await loaders.page('products', page, pageSize)), page, pageSize };
  },

  product: (_, { goodsCode }, { loaders }) => loaders.productByGoodsCode.load(codeArg('goodsCode', goodsCode)),

  async sitesNear(_, args, context) {
    const { lat, lng } = geoArgs(args.lat, args.lng);
    const radiusKm = radiusArg(args.radiusKm ?? 5);
    const first = firstArg(args.first, 20, context.maxPageSize);
    const cityCode = optionalCodeArg('cityCode', args.cityCode);
    const hasProduct = optionalCodeArg('hasProduct', args.hasProduct);
    const openAt = args.openAt === null || args.openAt === undefined ? undefined : timeArg('openAt', args.openAt, context.siteTime.read);
    const enabledOnly = args.enabledOnly ?? true;
    const catalog = await sitesCatalog(context, 'sitesNear');
    return sitesNear(catalog, {
      lat, lng, radiusKm, first, hasProduct,
      inStockOnly: args.inStockOnly ?? true,
      accepts: (site: SiteRecord) =>
        (!enabledOnly || isEnabled(site)) &&
        (cityCode === undefined || site.cityCode === cityCode) &&
        (openAt === undefined || isOpenAt(site.openTime, site.closeTime, openAt) === true),
    });
  },

  async searchProducts(_, args, context) {
    const text = textArg('text', args.text);
    const ipName = textArg('ipName', args.ipName);
    const first = firstArg(args.first, 20, context.maxPageSize);
    return searchProducts(await productsCatalog(context, 'searchProducts'), text, ipName, first);
  },
};
