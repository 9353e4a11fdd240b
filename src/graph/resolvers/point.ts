import type { CargoLaneResolvers, PointResolvers } from '../../generated/resolvers-types.js';
import { encodeId } from '../ids.js';
import { checkedInt } from './upstream-data.js';

export const Point: PointResolvers = {
  id: (point) => encodeId('Point', point.site.code, point.code),
  site: (point) => point.site,
  gradeType: (point) => checkedInt(point, 'gradeType'),
};

export const CargoLane: CargoLaneResolvers = {
  product(lane, _, { loaders }) {
    return lane.goodsCode === null ? null : loaders.product(lane.goodsCode);
  },

  stock: (lane) => checkedInt(lane, 'stock'),

  // Only list-with-points reports a lane's price; elsewhere it is the product's. Not async: a price
  // at hand is answered without a promise per lane.
  guidePrice(lane, _, { loaders, scope }) {
    if (lane.guidePrice !== null || lane.goodsCode === null) return lane.guidePrice;
    checkedInt(lane, 'guidePrice');
    scope.tag('product', lane.goodsCode);
    const product = loaders.product(lane.goodsCode);
    return product instanceof Promise ? product.then((loaded) => loaded?.guidePrice ?? null) : (product?.guidePrice ?? null);
  },
};
