/**
 * The per-request context: the request its door made, the execution's scope (deadline,
 * disconnect, budget) and fresh DataLoaders over the shared sources. A subscription's event must
 * show data as fresh as a query made then: `renew()`, called before each, starts all of it afresh.
 */
import type { YogaInitialContext } from 'graphql-yoga';
import type { Clock } from '../base/clock.js';
import type { CatalogIndex } from '../catalog/catalog-index.js';
import type { TimeReader } from '../catalog/opening-hours.js';
import type { Cursors } from './arguments/cursors.js';
import type { LiveStock } from '../live/live-stock.js';
import { createLoaders, type Loaders } from '../data/loaders.js';
import type { AddressOf } from '../request/client-address.js';
import type { Sources } from '../data/sources.js';
import { viewOf, type CatalogView } from '../catalog/view.js';
import { createRequestScope, type RequestScope } from '../request/scope.js';
import type { GatewayRequest } from '../request/request.js';
import { createUpstreamCharges, type ChargeHolder } from './budget/charges.js';

export interface GatewayContext {
  /** The request this runs for, as its door made it; undefined only outside every door. */
  gatewayRequest: GatewayRequest | undefined;
  loaders: Loaders;
  /** The catalog index as this request sees it; `undefined` when it is off. */
  catalog: CatalogView | undefined;
  scope: RequestScope;
  /** The largest `pageSize` a client may ask for. */
  maxPageSize: number;
  /** Reads times of day in the sites' time zone. */
  siteTime: TimeReader;
  /** Live stock, behind the `Subscription` fields. */
  live: LiveStock;
  /** Signs and checks the connections' cursors. */
  cursors: Cursors;
  /** Where a request came from: how the subscriptions' per-client limit knows a client without a key. */
  addressOf: AddressOf;
  /** Starts afresh for a subscription's next event: a new scope (deadline, budget) and new loaders. */
  renew(this: GatewayContext): void;
}

export interface ContextSettings {
  maxPageSize: number;
  requestTimeoutMs: number;
  /** The hard stop on the upstream calls one HTTP request (a whole batch) starts. */
  maxUpstreamCallsPerOperation: number;
  /** The catalog index, when on. */
  index: CatalogIndex | undefined;
  siteTime: TimeReader;
  live: LiveStock;
  cursors: Cursors;
  addressOf: AddressOf;
  /** The gateway's clock, on whose monotonic face start times and deadlines count. */
  clock: Clock;
}

export function createContextFactory(sources: Sources, settings: ContextSettings) {
  const chargesOf = createUpstreamCharges(settings.maxUpstreamCallsPerOperation);
  return ({ request, gatewayRequest }: { request: Pick<YogaInitialContext['request'], 'signal'>; gatewayRequest?: GatewayRequest }): GatewayContext => {
    // The first scope's budget and deadline are the request's (shared by a batch); an event's are its own.
    const start = (budgetOf: ChargeHolder, from?: number) => {
      const scope = createRequestScope(() => request.signal, settings.requestTimeoutMs, { request: gatewayRequest, from, clock: settings.clock, charge: chargesOf(budgetOf) });
      return { scope, loaders: createLoaders(sources, scope), catalog: settings.index && viewOf(settings.index, scope) };
    };
    return {
      ...start(gatewayRequest ?? { charge: undefined }, gatewayRequest?.startedAt),
      gatewayRequest,
      maxPageSize: settings.maxPageSize,
      siteTime: settings.siteTime,
      live: settings.live,
      cursors: settings.cursors,
      addressOf: settings.addressOf,
      // `this`: yoga copies these fields into its own context object, which resolvers are given.
      renew() {
        this.scope.dispose();
        Object.assign(this, start({ charge: undefined }));
      },
    };
  };
}

/**
 * `events`, with `context.renew()` before each is handed on. Not an async generator, whose
 * `return()` would wait behind a pending `next()`: a client leaving must reach the source at once.
 */
export function eachEventRenewing<T>(events: AsyncIterable<T>, context: GatewayContext): AsyncIterableIterator<T> {
  const source = events[Symbol.asyncIterator]();
  return {
    async next() {
      const event = await source.next();
      if (event.done !== true) context.renew();
      return event;
    },
    async return(value?: unknown) {
      return (await source.return?.(value)) ?? { done: true, value: undefined };
    },
    async throw(error?: unknown) {
      if (source.throw) return source.throw(error);
      throw error;
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}
