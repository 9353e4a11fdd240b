import type { Resolvers } from '../generated/resolvers-types.js';
import type { PageModel } from './models.js';
import { UpstreamError } from '../upstream/errors.js';
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
    cityId: async (city, _, { loaders }) => {
      const id = city.id ?? (await loaders.cityByCode.load(city.code))?.id;
      if (id === undefined) throw new UpstreamError('UPSTREAM_ERROR', `City ${city.code} is not in the upstream's city list`);
      return id;
    },
  },
  Product: {
    id: (product) => encodeId('Product', product.goodsCode),
  },
  CityPage: page,
  SitePage: page,
  ProductPage: page,
};
