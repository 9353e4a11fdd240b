/**
 * `Subscription.productStock` and `Subscription.stockAlerts` over SSE, rounds run by hand: a
 * product's stock from every site's pages (one call per page per round), and one alert per lane
 * crossing its threshold, never more.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { MockSite } from '../../src/mock-upstream/index.js';
import { startGateway, type Harness } from '../helpers/gateway.js';
import { until } from '../helpers/http.js';
import { subscribeSse, type SseSubscriber } from '../helpers/sse.js';

const PRODUCT_STOCK = `subscription P($g: String!, $city: String) {
  productStock(goodsCode: $g, cityCode: $city) { goodsCode totalStock product { productName } availability { site { code } point { code } stock } updatedAt }
}`;
const ALERTS = `subscription A($sites: [String!], $threshold: Int) {
  stockAlerts(siteCodes: $sites, threshold: $threshold) { kind site { code } point { code } laneIndex stock previousStock threshold }
}`;
const ENV = { LIVE_POLL_S: '3600' };

describe('productStock and stockAlerts', () => {
  let h: Harness;
  const subscribers: SseSubscriber[] = [];
  afterEach(async () => {
    subscribers.splice(0).forEach((subscriber) => subscriber.close());
    await h.close();
  });
  const subscribe = (query: string, variables: Record<string, unknown>) => {
    const subscriber = subscribeSse(h.url, query, variables);
    subscribers.push(subscriber);
    return subscriber;
  };

  it('sends a product\'s total stock at once, then when a lane holding it changes, from one call per list page', async () => {
    h = await startGateway({ env: ENV });
    const { site, point, laneIndex, goodsCode } = laneHoldingStock(h.mock.catalog.sites);
    const expected = expectedTotal(h.mock.catalog.sites, goodsCode);
    const subscriber = subscribe(PRODUCT_STOCK, { g: goodsCode });
    const [first] = await subscriber.received(1);
    expect(first!.data.productStock).toMatchObject({ goodsCode, totalStock: expected });
    expect(first!.data.productStock.product.productName).toEqual(expect.any(String));

    // The mock answers at most 50 items a page (its default cap), which the index's walk learnt.
    const pages = Math.ceil(h.mock.catalog.sites.length / 50);
    const calls = h.mock.calls('/api/site/list-with-points');
    await h.gateway.live.poller.pollNow(); // unchanged: no event
    expect(h.mock.calls('/api/site/list-with-points')).toBe(calls + pages);
    const lane = point.cargolanes[laneIndex]!;
    h.mock.setStock(site.code, point.code, laneIndex, lane.stock + 5);
    await h.gateway.live.poller.pollNow();
    const events = await subscriber.received(2);
    expect(events[1]!.data.productStock.totalStock).toBe(expected + 5);
    expect(events).toHaveLength(2);
  });

  it('alerts once when a lane falls to the threshold, once when it comes back above it, and never for lanes that did not cross', async () => {
    h = await startGateway({ env: ENV });
    const { site, point, laneIndex } = laneHoldingStock(h.mock.catalog.sites, 3);
    const original = point.cargolanes[laneIndex]!.stock;
    const subscriber = subscribe(ALERTS, { sites: [site.code], threshold: 2 });
    await until(() => h.gateway.live.subscriptions().stockAlerts === 1);
    await h.gateway.live.poller.pollNow(); // the baseline
    h.mock.setStock(site.code, point.code, laneIndex, 1);
    await h.gateway.live.poller.pollNow();
    await h.gateway.live.poller.pollNow(); // still low: no second alert
    h.mock.setStock(site.code, point.code, laneIndex, 0);
    await h.gateway.live.poller.pollNow(); // lower still: no alert
    h.mock.setStock(site.code, point.code, laneIndex, 9);
    await h.gateway.live.poller.pollNow();
    const events = await subscriber.received(2);
    expect(events.map((event) => event.data.stockAlerts)).toEqual([
      { kind: 'LOW', site: { code: site.code }, point: { code: point.code }, laneIndex, stock: 1, previousStock: original, threshold: 2 },
      { kind: 'RESTOCKED', site: { code: site.code }, point: { code: point.code }, laneIndex, stock: 9, previousStock: 0, threshold: 2 },
    ]);
    h.mock.setStock(site.code, point.code, laneIndex, 8);
    await h.gateway.live.poller.pollNow(); // above, and stays above: nothing
    h.mock.setStock(site.code, point.code, laneIndex, 2);
    await h.gateway.live.poller.pollNow();
    const later = await subscriber.received(3);
    expect(later).toHaveLength(3);
    expect(later[2]!.data.stockAlerts).toMatchObject({ kind: 'LOW', stock: 2, previousStock: 8 });
  });

  it('refuses bad arguments before anything is watched', async () => {
    h = await startGateway({ env: ENV });
    const [negative] = await subscribe(ALERTS, { sites: [h.mock.catalog.sites[0]!.code], threshold: -1 }).received(1);
    expect(negative!.errors?.map((error) => error.extensions?.code)).toEqual(['BAD_USER_INPUT']);
    const [empty] = await subscribe(ALERTS, { sites: [] }).received(1);
    expect(empty!.errors?.map((error) => error.extensions?.code)).toEqual(['BAD_USER_INPUT']);
    expect(h.gateway.live.poller.watchedKeys()).toBe(0);
  });
});

// Private: a lane with a product and more than `above` in stock, in a site the mock serves.
function laneHoldingStock(sites: readonly MockSite[], above = 0) {
  for (const site of sites) {
    for (const point of site.points) {
      const laneIndex = point.cargolanes.findIndex((lane) => lane.goodsCode !== undefined && lane.stock > above);
      if (laneIndex !== -1) return { site, point, laneIndex, goodsCode: point.cargolanes[laneIndex]!.goodsCode! };
    }
  }
  throw new Error('no lane in stock');
}

// Private: items of `goodsCode` in stock across every lane of every site.
function expectedTotal(sites: readonly MockSite[], goodsCode: string): number {
  let total = 0;
  for (const site of sites) for (const point of site.points) for (const lane of point.cargolanes) if (lane.goodsCode === goodsCode && lane.stock > 0) total += lane.stock;
  return total;
}
