/**
 * The catalog index as resolvers reach it: through the request's view of it, or a
 * `FEATURE_DISABLED` error when the gateway runs without it (`INDEX_ENABLED=false`).
 */
import type { GraphQLError } from 'graphql';
import { coded } from '../../base/graph-errors.js';
import type { ProductsCatalog, SitesCatalog } from '../../catalog/catalog.js';
import type { GatewayContext } from '../context.js';

export function sitesCatalog({ catalog }: GatewayContext, field: string): Promise<SitesCatalog> {
  if (catalog === undefined) throw disabled(field);
  return catalog.sites();
}

export function productsCatalog({ catalog }: GatewayContext, field: string): Promise<ProductsCatalog> {
  if (catalog === undefined) throw disabled(field);
  return catalog.products();
}

function disabled(field: string): GraphQLError {
  return coded('FEATURE_DISABLED', `${field} needs the catalog index, which this gateway runs without (INDEX_ENABLED=false)`);
}
