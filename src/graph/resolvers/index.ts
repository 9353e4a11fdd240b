import type { Resolvers } from '../../generated/resolvers-types.js';
import { boundResolvers } from '../bindings.js';
import { City } from './city.js';
import { Node } from './node.js';
import { pageResolvers } from './page.js';
import { CargoLane, Point } from './point.js';
import { Product } from './product.js';
import { QueryConnections } from './connections.js';
import { Query } from './query.js';
import { Site } from './site.js';
import { ProductStockUpdate, Subscription } from './subscription.js';

const written: Resolvers = {
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

/** The resolvers written here, and those the fields' bindings give (graph/bindings.ts). */
export const resolvers: Resolvers = withBound(written);

// Private: a written resolver wins over a bound one.
function withBound(own: Resolvers): Resolvers {
  const merged: Record<string, object> = { ...own };
  for (const [type, fields] of Object.entries(boundResolvers())) merged[type] = { ...fields, ...merged[type] };
  return merged as Resolvers;
}
