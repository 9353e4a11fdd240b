import type { QueryResolvers } from '../generated/resolvers-types.js';
import { codeArg, pageArgs } from './arguments.js';
import { resolveNode } from './node.js';
import { selectedFieldsOf, selectsPath } from './selection.js';

/** From this many sites, a page's lanes hold more products than the product list has pages, as a rule. */
const PREFETCH_MIN_SITES = 5;
const LANE_PRODUCTS = ['items', 'points', 'cargoLanes', 'product'];

/** Site fields that only list-with-points (or a per-site lookup) can answer. */
const FIELDS_NEEDING_POINTS = ['points', 'city'];

export const Query: QueryResolvers = {
  node: (_, { id }, { loaders }) => resolveNode(id, loaders),

  async cities(_, args, { loaders, maxPageSize }) {
    const { page, pageSize } = pageArgs(args, maxPageSize);
    return { ...(await loaders.page('cities', page, pageSize)), page, pageSize };
  },

  city: (_, { code }, { loaders }) => loaders.cityByCode.load(codeArg('code', code)),

  async sites(_, args, { loaders, maxPageSize }, info) {
    const { page, pageSize } = pageArgs(args, maxPageSize);
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
};
