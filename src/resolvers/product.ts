import { availability } from '../catalog/catalog.js';
import type { ProductResolvers } from '../generated/resolvers-types.js';
import { badUserInput, firstArg, geoArgs, optionalCodeArg, radiusArg } from './arguments.js';
import { sitesCatalog } from './catalog.js';
import { encodeId } from './ids.js';

/** Lanes `availability` returns at most. */
const MAX_AVAILABILITY = 1000;

export const Product: ProductResolvers = {
  id: (product) => encodeId('Product', product.goodsCode),

  async availability(product, args, context) {
    const near = args.near ? geoArgs(args.near.lat, args.near.lng, 'near.') : undefined;
    const radiusKm = args.radiusKm === null || args.radiusKm === undefined ? undefined : radiusArg(args.radiusKm);
    if (radiusKm !== undefined && near === undefined) throw badUserInput('radiusKm needs near: a radius around nothing');
    const query = {
      cityCode: optionalCodeArg('cityCode', args.cityCode),
      near,
      radiusKm,
      inStockOnly: args.inStockOnly ?? true,
      first: firstArg(args.first, 50, MAX_AVAILABILITY),
    };
    const lanes = availability(await sitesCatalog(context, 'availability'), product.goodsCode, query);
    return lanes.map(({ site, point, lane, stock, distanceKm }) => ({ site, point: { ...point, site }, lane, stock, distanceKm }));
  },

  async totalStock(product, _, context) {
    return (await sitesCatalog(context, 'totalStock')).stockByGoodsCode.get(product.goodsCode) ?? 0;
  },
};
