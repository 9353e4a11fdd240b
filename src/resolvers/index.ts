import type { Resolvers } from '../generated/resolvers-types.js';
import type { PageModel } from './models.js';
import { encodeId } from './ids.js';
import { Node } from './node.js';
import { CargoLane, Point } from './point.js';
import { Query } from './query.js';
import { Site } from './site.js';

const page = {
  hasNextPage: ({ page, pageSize, total }: PageModel<unknown>) => page * pageSize < total,
};

export const resolvers: Resolvers = {
  Query,
  Node,
  Site,
  Point,
  CargoLane,
  City: {
    id: (city) => encodeId('City', city.code),
    cityId: (city) => city.id,
  },
  Product: {
    id: (product) => encodeId('Product', product.goodsCode),
  },
  CityPage: page,
  SitePage: page,
  ProductPage: page,
};
