import { availability } from '../../catalog/catalog.js';
import type { ProductResolvers } from '../../generated/resolvers-types.js';
import { availabilityArgs } from '../arguments/values.js';
import { sitesCatalog } from './catalog.js';
import { encodeId } from '../ids.js';
import { checkedInt } from './upstream-data.js';

export const Product: ProductResolvers = {
  id: (product) => encodeId('Product', product.goodsCode),
  ipId: (product) => checkedInt(product, 'ipId'),
  costPrice: (product) => checkedInt(product, 'costPrice'),
  guidePrice: (product) => checkedInt(product, 'guidePrice'),

  async availability(product, args, context) {
    const query = availabilityArgs(args);
    const lanes = availability(await sitesCatalog(context, 'availability'), product.goodsCode, query);
    return lanes.map(({ site, point, lane, stock, distanceKm }) => ({ site, point: { ...point, site }, lane, stock, distanceKm }));
  },

  async totalStock(product, _, context) {
    return (await sitesCatalog(context, 'totalStock')).stockByGoodsCode.get(product.goodsCode) ?? 0;
  },
};
