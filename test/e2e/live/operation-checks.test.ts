/**
 * A subscription pays like a query: its arguments, its list entries and its upstream calls (per
 * event) are checked before it starts, over SSE and WebSocket alike; and each event resolves as a
 * query made then would, with fresh loaders and a deadline of its own.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startGateway, type Harness } from '../../helpers/gateway.js';
import { until } from '../../helpers/http.js';
import { subscribeSse, type SseSubscriber } from '../../helpers/sse.js';
import { subscribeWs, type WsSubscriber } from '../../helpers/websocket.js';

// Rounds run only when a test asks (pollNow).
const ENV = { LIVE_POLL_S: '3600' };
const LANES = 'points { cargoLanes { product { availability(first: 50) { stock } } } }';

describe('a subscription checked as a query is', () => {
  let h: Harness;
  const open: Array<SseSubscriber | WsSubscriber> = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((subscriber) => subscriber.close()));
    await h.close();
  });
  const overSse = (query: string, variables: Record<string, unknown> = {}) => {
    const subscriber = subscribeSse(h.url, query, variables);
    open.push(subscriber);
    return subscriber.received(1).then(([first]) => first!);
  };
  const overWs = async (query: string, variables: Record<string, unknown> = {}) => {
    const subscriber = subscribeWs(h.wsUrl, query, variables);
    open.push(subscriber);
    const ended = await subscriber.ended;
    return ended === 'complete' ? subscriber.events[0]! : { errors: (ended as { errors: Array<{ extensions?: Record<string, unknown> }> }).errors };
  };
  const codesOf = (result: { errors?: ReadonlyArray<{ extensions?: Record<string, unknown> }> }) => result.errors?.map((error) => error.extensions?.code);
  const nothingWatched = () => {
    expect(Object.values(h.gateway.live.subscriptions()).reduce((a, b) => a + b, 0)).toBe(0);
    expect(h.gateway.live.poller.watchedKeys()).toBe(0);
  };

  it('refused over the item limit, with the code a query gets, before anything is watched', async () => {
    h = await startGateway({ env: { ...ENV, MAX_ITEMS_PER_OPERATION: '200' } });
    const code = h.mock.catalog.sites[0]!.code;
    expect(codesOf(await h.query(`query ($code: String!) { site(code: $code) { ${LANES} } }`, { code }))).toEqual(['ITEM_LIMIT_EXCEEDED']);
    const subscription = `subscription ($code: String!) { siteStock(code: $code) { ${LANES} } }`;
    const calls = h.mock.calls();
    expect(codesOf(await overSse(subscription, { code }))).toEqual(['ITEM_LIMIT_EXCEEDED']);
    expect(codesOf(await overWs(subscription, { code }))).toEqual(['ITEM_LIMIT_EXCEEDED']);
    nothingWatched();
    expect(h.mock.calls()).toBe(calls);
  });

  it('refused when one event could cost more upstream calls than MAX_UPSTREAM_CALLS_PER_OPERATION', async () => {
    h = await startGateway({ env: { ...ENV, MAX_UPSTREAM_CALLS_PER_OPERATION: '5' } });
    const siteCodes = h.mock.catalog.sites.slice(0, 10).map((site) => site.code);
    const subscription = 'subscription ($siteCodes: [String!]) { stockAlerts(siteCodes: $siteCodes) { stock } }';
    const calls = h.mock.calls();
    expect(codesOf(await overSse(subscription, { siteCodes }))).toEqual(['UPSTREAM_BUDGET_EXCEEDED']);
    expect(codesOf(await overWs(subscription, { siteCodes }))).toEqual(['UPSTREAM_BUDGET_EXCEEDED']);
    nothingWatched();
    expect(h.mock.calls()).toBe(calls);
    // Five named sites fit.
    const [first] = await subscribeSseKept(subscription, { siteCodes: siteCodes.slice(0, 5) });
    expect(first).toBeUndefined();
    expect(h.gateway.live.subscriptions().stockAlerts).toBe(1);
  });

  it('refused for a bad argument of a nested field, named as such', async () => {
    h = await startGateway({ env: ENV });
    const goodsCode = h.mock.catalog.products[0]!.goodsCode;
    const subscription = 'subscription ($goodsCode: String!) { productStock(goodsCode: $goodsCode) { product { availability(first: 5000) { stock } } } }';
    expect(codesOf(await overSse(subscription, { goodsCode }))).toEqual(['BAD_USER_INPUT']);
    expect(codesOf(await overWs(subscription, { goodsCode }))).toEqual(['BAD_USER_INPUT']);
    nothingWatched();
  });

  it('refused over the query limits over WebSocket, as over SSE', async () => {
    h = await startGateway({ env: { ...ENV, MAX_QUERY_DEPTH: '4' } });
    const code = h.mock.catalog.sites[0]!.code;
    const deep = 'subscription ($code: String!) { siteStock(code: $code) { points { cargoLanes { product { availability { site { code } } } } } } }';
    expect(codesOf(await overWs(deep, { code }))).toEqual(['DEPTH_LIMIT_EXCEEDED']);
    nothingWatched();
  });

  // Private: an SSE subscriber kept open; resolves with the events it has once the subscription counts.
  async function subscribeSseKept(query: string, variables: Record<string, unknown>) {
    const subscriber = subscribeSse(h.url, query, variables);
    open.push(subscriber);
    expect(await subscriber.status).toBe(200);
    await until(() => h.gateway.live.subscriptions().stockAlerts === 1);
    return subscriber.events;
  }
});

describe('each event of a subscription', () => {
  let h: Harness;
  const open: SseSubscriber[] = [];
  afterEach(async () => {
    open.splice(0).forEach((subscriber) => subscriber.close());
    await h.close();
  });
  const SITE = 'subscription ($code: String!) { siteStock(code: $code) { points { code cargoLanes { stock product { goodsCode guidePrice } } } } }';

  it('shows a product\'s new price once its TTL has passed, as a query made then would', async () => {
    h = await startGateway({ env: { ...ENV, CACHE_TTL_PRODUCTS_S: '1' } });
    const site = h.mock.catalog.sites.find((s) => s.points[0]?.cargolanes[0]?.goodsCode)!;
    const point = site.points[0]!;
    const lane = point.cargolanes[0]!;
    const product = h.mock.catalog.products.find((p) => p.goodsCode === lane.goodsCode)!;
    const subscriber = subscribeSse(h.url, SITE, { code: site.code });
    open.push(subscriber);
    const [first] = await subscriber.received(1);
    const priceIn = (event: { data?: any }) => event.data.siteStock.points[0].cargoLanes[0].product.guidePrice as number;
    expect(priceIn(first!)).toBe(product.guidePrice);

    product.guidePrice += 100;
    h.clock.advance(2000); // past the products' TTL
    h.mock.setStock(site.code, point.code, 0, (lane.stock ?? 0) + 3);
    await h.gateway.live.poller.pollNow();
    const [, second] = await subscriber.received(2);
    expect(second!.errors).toBeUndefined();
    expect(priceIn(second!)).toBe(product.guidePrice);
  });

  it('has a deadline of its own: an event long after REQUEST_TIMEOUT_MS still loads what it needs', async () => {
    h = await startGateway({ env: { ...ENV, CACHE_TTL_PRODUCTS_S: '1', REQUEST_TIMEOUT_MS: '1000' } });
    const site = h.mock.catalog.sites.find((s) => s.points[0]?.cargolanes[0]?.goodsCode)!;
    const point = site.points[0]!;
    const product = h.mock.catalog.products.find((p) => p.goodsCode === point.cargolanes[0]!.goodsCode)!;
    const subscriber = subscribeSse(h.url, SITE, { code: site.code });
    open.push(subscriber);
    await subscriber.received(1);
    // Past the subscription's first deadline (a lower bound only: waiting longer changes nothing).
    await new Promise((resolve) => setTimeout(resolve, 1500));
    product.guidePrice += 50;
    h.clock.advance(2000); // the product must be loaded again, under this event's deadline
    h.mock.setStock(site.code, point.code, 0, (point.cargolanes[0]!.stock ?? 0) + 5);
    await h.gateway.live.poller.pollNow();
    const [, second] = await subscriber.received(2);
    expect(second!.errors).toBeUndefined();
    expect(second!.data.siteStock.points[0].cargoLanes[0].product.guidePrice).toBe(product.guidePrice);
  });
});
