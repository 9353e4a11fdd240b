/**
 * The catalog index as resolvers reach it: the request's view, or `FEATURE_DISABLED` without it.
 * An answer read from it is tagged by the list the index walks.
 */
import type { GraphQLError } from 'graphql';
import { coded } from '../../base/graph-errors.js';
import type { ProductsCatalog, SitesCatalog } from '../../catalog/catalog.js';
import type { GatewayContext } from '../context.js';

export function sitesCatalog({ catalog, scope }: GatewayContext, field: string): Promise<SitesCatalog> {
  if (catalog === undefined) throw disabled(field);
  scope.tag('sites');
  return catalog.sites();
}

export function productsCatalog({ catalog, scope }: GatewayContext, field: string): Promise<ProductsCatalog> {
  if (catalog === undefined) throw disabled(field);
  scope.tag('products');
  return catalog.products();
}

function disabled(field: string): GraphQLError {
  return coded('FEATURE_DISABLED', `${field} needs the catalog index, which this gateway runs without (INDEX_ENABLED=false)`);
}
