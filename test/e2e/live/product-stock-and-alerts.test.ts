/**
 * `Subscription.productStock` and `Subscription.stockAlerts` over SSE, rounds run by hand: a
 * product's stock from every site's pages (one call per page per round), and one alert per lane
 * crossing its threshold, never more.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { MockSite } from '../../../src/mock-upstream/index.js';
import { startGateway, type Harness } from '../../helpers/gateway.js';
import { until } from '../../helpers/http.js';
import { subscribeSse, type SseSubscriber } from '../../helpers/sse.js';

const PRODUCT_STOCK = `subscription P($g: String!, $city: String, $enabledOnly: Boolean) {
  productStock(goodsCode: $g, cityCode: $city, enabledOnly: $enabledOnly) { goodsCode totalStock product { productName } availability { site { code } point { code } stock } updatedAt }
}`;
const ALERTS = `subscription A($sites: [String!], $threshold: Int) {
  stockAlerts(siteCodes: $sites, threshold: $threshold) { kind site { code } point { code } laneIndex stock previousStock threshold }
}`;
const ALERTS_IN_CITY = `subscription C($city: String, $threshold: Int) {
  stockAlerts(cityCode: $city, threshold: $threshold) { kind site { code } laneIndex stock }
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

  it('sends one error event while the pages fail, then the stock again', async () => {
    h = await startGateway({ env: { ...ENV, UPSTREAM_RETRIES: '0' } });
    const { goodsCode } = laneHoldingStock(h.mock.catalog.sites);
    const subscriber = subscribe(PRODUCT_STOCK, { g: goodsCode });
    await subscriber.received(1);
    h.mock.fault('/api/site/list-with-points', 'http503');
    await h.gateway.live.poller.pollNow();
    await h.gateway.live.poller.pollNow();
    const [, failure] = await subscriber.received(2);
    expect(failure!.errors?.map((error) => error.extensions?.code)).toEqual(['UPSTREAM_UNAVAILABLE']);
    h.mock.clearFaults();
    await h.gateway.live.poller.pollNow();
    const events = await subscriber.received(3);
    expect(events).toHaveLength(3);
    expect(events[2]!.data.productStock.totalStock).toBe(expectedTotal(h.mock.catalog.sites, goodsCode));
  });

  it('counts only the lanes of the city asked for, from the same walk', async () => {
    h = await startGateway({ env: ENV });
    const { site, point, laneIndex, goodsCode } = laneHoldingStock(h.mock.catalog.sites);
    const inCity = h.mock.catalog.sites.filter((candidate) => candidate.cityCode === site.cityCode);
    const subscriber = subscribe(PRODUCT_STOCK, { g: goodsCode, city: site.cityCode });
    const [first] = await subscriber.received(1);
    expect(first!.data.productStock.totalStock).toBe(expectedTotal(inCity, goodsCode));
    // The product is in stock in another city too: the filter matters.
    expect(expectedTotal(inCity, goodsCode)).toBeLessThan(expectedTotal(h.mock.catalog.sites, goodsCode));
    expect(first!.data.productStock.availability.every((lane: { site: { code: string } }) => inCity.some((s) => s.code === lane.site.code))).toBe(true);
    // A change elsewhere makes no event; one in the city does.
    const elsewhere = laneHoldingStock(h.mock.catalog.sites.filter((candidate) => candidate.cityCode !== site.cityCode && holds(candidate, goodsCode)), 0, goodsCode);
    h.mock.setStock(elsewhere.site.code, elsewhere.point.code, elsewhere.laneIndex, elsewhere.point.cargolanes[elsewhere.laneIndex]!.stock + 3);
    await h.gateway.live.poller.pollNow();
    h.mock.setStock(site.code, point.code, laneIndex, point.cargolanes[laneIndex]!.stock + 2);
    await h.gateway.live.poller.pollNow();
    const events = await subscriber.received(2);
    expect(events).toHaveLength(2);
    expect(events[1]!.data.productStock.totalStock).toBe(expectedTotal(inCity, goodsCode));
  });

  it('alerts on the lanes of every site of a city when no sites are named, from one walk of the pages per round', async () => {
    h = await startGateway({ env: ENV });
    const { site, point, laneIndex } = laneHoldingStock(h.mock.catalog.sites, 3);
    const other = laneHoldingStock(h.mock.catalog.sites.filter((candidate) => candidate.cityCode !== site.cityCode), 3);
    const subscriber = subscribe(ALERTS_IN_CITY, { city: site.cityCode, threshold: 2 });
    await until(() => h.gateway.live.subscriptions().stockAlerts === 1);
    await h.gateway.live.poller.pollNow(); // the baseline
    const calls = h.mock.calls('/api/site/list-with-points');
    h.mock.setStock(other.site.code, other.point.code, other.laneIndex, 0); // another city: no alert
    h.mock.setStock(site.code, point.code, laneIndex, 0);
    await h.gateway.live.poller.pollNow();
    const [alert] = await subscriber.received(1);
    expect(alert!.data.stockAlerts).toMatchObject({ kind: 'LOW', site: { code: site.code }, laneIndex, stock: 0 });
    expect(h.mock.calls('/api/site/list-with-points')).toBe(calls + Math.ceil(h.mock.catalog.sites.length / 50));
    expect(h.mock.calls('/api/site/detail')).toBe(0);
    await h.gateway.live.poller.pollNow();
    expect(subscriber.events).toHaveLength(1);
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

  it('leaves out the lanes of sites not in service, unless asked with enabledOnly: false', async () => {
    h = await startGateway({ env: ENV });
    const { site, point, laneIndex, goodsCode } = laneHoldingStock(h.mock.catalog.sites);
    site.state = 0;
    const all = h.mock.catalog.sites;
    expect(expectedTotal(all, goodsCode)).toBeLessThan(expectedTotal(all, goodsCode, false));
    const enabled = subscribe(PRODUCT_STOCK, { g: goodsCode });
    const everySite = subscribe(PRODUCT_STOCK, { g: goodsCode, enabledOnly: false });
    const [first] = await enabled.received(1);
    const [firstOfAll] = await everySite.received(1);
    expect(first!.data.productStock.totalStock).toBe(expectedTotal(all, goodsCode));
    expect(first!.data.productStock.availability.map((lane: { site: { code: string } }) => lane.site.code)).not.toContain(site.code);
    expect(firstOfAll!.data.productStock.totalStock).toBe(expectedTotal(all, goodsCode, false));
    expect(firstOfAll!.data.productStock.availability.map((lane: { site: { code: string } }) => lane.site.code)).toContain(site.code);
    // A sale in the site not in service moves only the subscription that counts it.
    h.mock.setStock(site.code, point.code, laneIndex, point.cargolanes[laneIndex]!.stock + 4);
    await h.gateway.live.poller.pollNow();
    const [, second] = await everySite.received(2);
    expect(second!.data.productStock.totalStock).toBe(expectedTotal(all, goodsCode, false));
    await h.gateway.live.poller.pollNow();
    expect(enabled.events).toHaveLength(1);
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

// Private: a lane of an enabled site with a product (`goodsCode`, when given) and more than `above` in stock.
function laneHoldingStock(sites: readonly MockSite[], above = 0, goodsCode?: string) {
  for (const site of sites.filter((candidate) => candidate.state === 1)) {
    for (const point of site.points) {
      const laneIndex = point.cargolanes.findIndex((lane) => lane.goodsCode !== undefined && (goodsCode === undefined || lane.goodsCode === goodsCode) && lane.stock > above);
      if (laneIndex !== -1) return { site, point, laneIndex, goodsCode: point.cargolanes[laneIndex]!.goodsCode! };
    }
  }
  throw new Error('no lane in stock');
}

// Private: items of `goodsCode` in stock across every lane of the enabled sites (of every site, when not `enabledOnly`).
function expectedTotal(sites: readonly MockSite[], goodsCode: string, enabledOnly = true): number {
  let total = 0;
  for (const site of sites.filter((candidate) => !enabledOnly || candidate.state === 1)) for (const point of site.points) for (const lane of point.cargolanes) if (lane.goodsCode === goodsCode && lane.stock > 0) total += lane.stock;
  return total;
}

// Private: whether a site has a lane holding `goodsCode` in stock.
function holds(site: MockSite, goodsCode: string): boolean {
  return site.points.some((point) => point.cargolanes.some((lane) => lane.goodsCode === goodsCode && lane.stock > 0));
}
