import type { CargoLaneResolvers, PointResolvers } from '../generated/resolvers-types.js';
import { encodeId } from './ids.js';
import { checkedInt } from './upstream-data.js';

export const Point: PointResolvers = {
  id: (point) => encodeId('Point', point.site.code, point.code),
  site: (point) => point.site,
  gradeType: (point) => checkedInt(point, 'gradeType'),
};

export const CargoLane: CargoLaneResolvers = {
  product: (lane, _, { loaders }) =>
    lane.goodsCode === null ? null : loaders.productByGoodsCode.load(lane.goodsCode),

  stock: (lane) => checkedInt(lane, 'stock'),

  // Only list-with-points reports a lane's price; elsewhere it is the product's.
  async guidePrice(lane, _, { loaders }) {
    if (lane.guidePrice !== null || lane.goodsCode === null) return lane.guidePrice;
    checkedInt(lane, 'guidePrice');
    return (await loaders.productByGoodsCode.load(lane.goodsCode))?.guidePrice ?? null;
  },
};
