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

// Private: the lanes holding the product, from the catalog index (`field` names the one asking).
async function lanesOf(product: ProductRecord, query: AvailabilityQuery, context: GatewayContext, field: string) {
  return availability(await sitesCatalog(context, field), product.goodsCode, query);
}

// Private: a lane as the schema's Availability shows it (its point knows its site).
function modelOf({ site, point, lane, stock, distanceKm }: Awaited<ReturnType<typeof lanesOf>>[number]): AvailabilityModel {
  return { site, point: { ...point, site }, lane, stock, distanceKm };
}

export const Product: ProductResolvers = {
  id: (product) => encodeId('Product', product.goodsCode),
  ipId: (product) => checkedInt(product, 'ipId'),
  costPrice: (product) => checkedInt(product, 'costPrice'),
  guidePrice: (product) => checkedInt(product, 'guidePrice'),

  availability: async (product, args, context) => (await lanesOf(product, availabilityArgs(args), context, 'availability')).map(modelOf),

  async availabilityConnection(product, args, context) {
    const { window, list, ...query } = RULES['Product.availabilityConnection'](args, context, product.goodsCode);
    // Every lane is counted (totalCount), only the window's are made into models.
    const lanes = await lanesOf(product, { ...query, first: Number.MAX_SAFE_INTEGER }, context, 'availabilityConnection');
    return sliceConnection(lanes, window, list, context.cursors, (lane) => ({ node: modelOf(lane) }));
  },

  async totalStock(product, _, context) {
    return (await sitesCatalog(context, 'totalStock')).stockByGoodsCode.get(product.goodsCode) ?? 0;
  },
};
