/**
 * The Relay connections of `Query`: the page fields' lists (query.ts), paged by cursor. Lists
 * the catalog index holds are sliced in memory; the plain site and product lists are read from
 * the upstream's pages, the window's items only (graph/connections/upstream-window.ts).
 */
import { searchProducts, sitesNear } from '../../catalog/catalog.js';
import type { QueryResolvers } from '../../generated/resolvers-types.js';
import { ARGUMENT_RULES as RULES } from '../arguments/rules.js';
import { CONNECTION_SIZES } from '../arguments/window.js';
import { connectionOf, sliceConnection } from '../connections/build.js';
import { readWindow } from '../connections/upstream-window.js';
import { productsCatalog, sitesCatalog } from './catalog.js';
import { acceptsNear, filteredSites, siteList } from './query.js';

/** Everything a list holds, for a slice of it: the catalog's functions take a bound. */
const ALL = Number.MAX_SAFE_INTEGER;
const node = <T>(item: T) => ({ node: item });

export const QueryConnections: QueryResolvers = {
  async sitesConnection(_, args, context, info) {
    const { cityCode, enabledOnly, window, list } = RULES['Query.sitesConnection'](args, context);
    const { cursors, loaders } = context;
    if (cityCode !== undefined || enabledOnly) {
      return sliceConnection(await filteredSites(context, 'sitesConnection(cityCode, enabledOnly)', cityCode, enabledOnly), window, list, cursors, node);
    }
    const fallback = CONNECTION_SIZES['Query.sitesConnection']!.fallback;
    const kind = siteList(context, info, ['edges', 'node'], window.first ?? window.last ?? fallback);
    const read = await readWindow(loaders, kind, window, fallback);
    return connectionOf(read.items.map(node), read.start, read.total, list, cursors);
  },

  async productsConnection(_, args, context) {
    const { window, list } = RULES['Query.productsConnection'](args, context);
    const read = await readWindow(context.loaders, 'products', window, CONNECTION_SIZES['Query.productsConnection']!.fallback);
    return connectionOf(read.items.map(node), read.start, read.total, list, context.cursors);
  },

  async sitesNearConnection(_, args, context) {
    const { lat, lng, radiusKm, cityCode, hasProduct, openAt, enabledOnly, inStockOnly, window, list } = RULES['Query.sitesNearConnection'](args, context);
    const found = sitesNear(await sitesCatalog(context, 'sitesNearConnection'), {
      lat, lng, radiusKm, first: ALL, hasProduct, inStockOnly,
      accepts: acceptsNear({ cityCode, openAt, enabledOnly }),
    });
    return sliceConnection(found, window, list, context.cursors, ({ site, distanceKm }) => ({ node: site, distanceKm }));
  },

  async searchProductsConnection(_, args, context) {
    const { text, ipName, window, list } = RULES['Query.searchProductsConnection'](args, context);
    const found = searchProducts(await productsCatalog(context, 'searchProductsConnection'), text, ipName, ALL);
    return sliceConnection(found, window, list, context.cursors, node);
  },
};
