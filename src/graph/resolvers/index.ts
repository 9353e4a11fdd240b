import type { Resolvers } from '../../generated/resolvers-types.js';
import { City } from './city.js';
import { Node } from './node.js';
import { pageResolvers } from './page.js';
import { CargoLane, Point } from './point.js';
import { Product } from './product.js';
import { QueryConnections } from './connections.js';
import { Query } from './query.js';
import { Site } from './site.js';
import { ProductStockUpdate, Subscription } from './subscription.js';

export const resolvers: Resolvers = {
  Query: { ...Query, ...QueryConnections },
  Subscription,
  ProductStockUpdate,
  Node,
  City,
  Site,
  Point,
  CargoLane,
  Product,
  CityPage: pageResolvers,
  SitePage: pageResolvers,
  ProductPage: pageResolvers,
};
