import { availability, type AvailabilityQuery } from '../../catalog/catalog.js';
import type { AvailabilityModel } from '../../data/models.js';
import type { ProductRecord } from '../../upstream/records.js';
import type { GatewayContext } from '../context.js';
import { ARGUMENT_RULES as RULES } from '../arguments/rules.js';
import { sliceConnection } from '../connections/build.js';
import type { ProductResolvers } from '../../generated/resolvers-types.js';
import { availabilityArgs } from '../arguments/values.js';
import { sitesCatalog } from './catalog.js';
import { encodeId } from '../ids.js';
import { checkedInt } from './upstream-data.js';

// Private: the lanes holding the product, as `availability` and its connection list them.
async function lanesOf(product: ProductRecord, query: AvailabilityQuery, context: GatewayContext): Promise<AvailabilityModel[]> {
  const lanes = availability(await sitesCatalog(context, 'availability'), product.goodsCode, query);
  return lanes.map(({ site, point, lane, stock, distanceKm }) => ({ site, point: { ...point, site }, lane, stock, distanceKm }));
}

export const Product: ProductResolvers = {
  id: (product) => encodeId('Product', product.goodsCode),
  ipId: (product) => checkedInt(product, 'ipId'),
  costPrice: (product) => checkedInt(product, 'costPrice'),
  guidePrice: (product) => checkedInt(product, 'guidePrice'),

  availability: (product, args, context) => lanesOf(product, availabilityArgs(args), context),

  async availabilityConnection(product, args, context) {
    const { window, list, ...query } = RULES['Product.availabilityConnection'](args, context, product.goodsCode);
    const lanes = await lanesOf(product, { ...query, first: Number.MAX_SAFE_INTEGER }, context);
    return sliceConnection(lanes, window, list, context.cursors, (lane) => ({ node: lane }));
  },

  async totalStock(product, _, context) {
    return (await sitesCatalog(context, 'totalStock')).stockByGoodsCode.get(product.goodsCode) ?? 0;
  },
};
