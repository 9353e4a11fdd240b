/**
 * The live stock fields: `subscribe` checks the arguments and opens the stream, each event
 * resolving with a renewed context; an event's error is sent as an event with `errors`, and the
 * subscription goes on.
 */
import type { IncomingMessage } from 'node:http';
import { eachEventRenewing, type GatewayContext } from '../context.js';
import type { ProductStockUpdateResolvers, SubscriptionResolvers } from '../../generated/resolvers-types.js';
import type { LiveEvent } from '../../live/live-stock.js';
import { clientKey } from '../../request/current.js';
import { ARGUMENT_RULES as RULES } from '../arguments/rules.js';

export const Subscription: SubscriptionResolvers = {
  siteStock: {
    subscribe: (_, args, context) => eachEventRenewing(context.live.siteStock(RULES['Subscription.siteStock'](args), clientOf(context)), context),
    resolve: valueOf,
  },
  productStock: {
    subscribe: (_, args, context) => eachEventRenewing(context.live.productStock(RULES['Subscription.productStock'](args), clientOf(context)), context),
    resolve: valueOf,
  },
  stockAlerts: {
    subscribe: (_, args, context) => eachEventRenewing(context.live.stockAlerts(RULES['Subscription.stockAlerts'](args, context), clientOf(context)), context),
    resolve: valueOf,
  },
};

export const ProductStockUpdate: ProductStockUpdateResolvers = {
  product: (update, _, { loaders }) => loaders.productByGoodsCode.load(update.goodsCode),
};

// Private: each event of the stream is the parent `resolve` gets.
function valueOf<T>(event: LiveEvent<T>): T {
  if ('error' in event) throw event.error;
  return event.value;
}

// Private: who holds the subscription, for its limit, as the rate limit knows its client.
function clientOf(context: GatewayContext & { req?: IncomingMessage }): string {
  return clientKey(context.gatewayRequest?.client, context.req, context.addressOf);
}
