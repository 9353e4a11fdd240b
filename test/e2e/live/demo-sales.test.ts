/**
 * Demo mode's sales reach subscribers: the demo upstream (app/demo.ts) sells at
 * DEMO_SALES_PER_MINUTE's default, and `siteStock` and `stockAlerts` over SSE carry what sales and
 * restocking did. Sales are ticked and polls run by hand, so nothing waits on a timer, except in
 * the last test: the gateway as its own process (src/main.ts, as `npm start` runs it), whose sales
 * are on by themselves, waited on until its second event.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startDemoUpstream, type DemoUpstream } from '../../../src/app/demo.js';
import { loadConfig } from '../../../src/base/config/config.js';
import { createMockUpstream, type MockSite, type MockUpstream } from '../../../src/mock-upstream/index.js';
import { startGateway, type Harness } from '../../helpers/gateway.js';
import { until } from '../../helpers/http.js';
import { createManualScheduler } from '../../helpers/scheduler.js';
import { startDemo } from '../../helpers/demo.js';
import { subscribeSse, type SseSubscriber } from '../../helpers/sse.js';

const SITE_STOCK = 'subscription S($code: String!) { siteStock(code: $code) { code points { code cargoLanes { goodsCode stock } } } }';
const ALERTS = `subscription A($sites: [String!]) {
  stockAlerts(siteCodes: $sites, threshold: 0) { kind site { code } laneIndex stock previousStock }
}`;
const ENV = { LIVE_POLL_S: '3600' };

// Private: a site's lanes as `siteStock` shows them.
const lanesOf = (site: MockSite) => site.points.map((point) => ({
  code: point.code, cargoLanes: point.cargolanes.map((lane) => ({ goodsCode: lane.goodsCode ?? null, stock: lane.stock })),
}));

describe('demo sales over live stock', () => {
  let h: Harness | undefined;
  let demo: DemoUpstream | undefined;
  let own: MockUpstream | undefined;
  const subscribers: SseSubscriber[] = [];
  afterEach(async () => {
    subscribers.splice(0).forEach((subscriber) => subscriber.close());
    await h?.close();
    await demo?.close();
    await own?.close();
    [h, demo, own] = [undefined, undefined, undefined];
  });
  const subscribe = (query: string, variables: Record<string, unknown>) => {
    const subscriber = subscribeSse(h!.url, query, variables);
    subscribers.push(subscriber);
    return subscriber;
  };

  it('in demo mode, sales change a site\'s stock with nobody touching the mock, and siteStock pushes it', async () => {
    const scheduler = createManualScheduler();
    const { demoSalesPerMinute } = loadConfig({});
    demo = await startDemoUpstream({ latencyMs: 0, salesPerMinute: demoSalesPerMinute, scheduler });
    h = await startGateway({ sharedMock: demo.mock, env: ENV });
    const site = demo.mock.catalog.sites.find((candidate) => candidate.state === 1)!;
    const subscriber = subscribe(SITE_STOCK, { code: site.code });
    const [first] = await subscriber.received(1);
    expect(first!.data.siteStock.points).toEqual(lanesOf(site));

    const before = JSON.stringify(lanesOf(site));
    // A tick sells one item at each open site on average: a few ticks reach this one.
    for (let ticks = 0; JSON.stringify(lanesOf(site)) === before; ticks += 1) {
      expect(ticks).toBeLessThan(100);
      scheduler.tick();
    }
    await h.gateway.live.poller.pollNow();
    const [, second] = await subscriber.received(2);
    expect(second!.data.siteStock.points).toEqual(lanesOf(site));
  });

  it('sends LOW when a sale empties a lane and RESTOCKED when the restock refills it', async () => {
    const scheduler = createManualScheduler();
    const mock = await createMockUpstream({
      catalog: { sites: 1, pointsPerSite: 1, lanesPerPoint: 1, seed: 3 },
      sales: { perMinute: 60, scheduler, restockTicks: 2, capacity: 20 },
    });
    own = mock;
    h = await startGateway({ sharedMock: mock, env: ENV });
    const [site] = mock.catalog.sites;
    site!.state = 1;
    const point = site!.points[0]!;
    expect(point.cargolanes[0]!.goodsCode).toBeDefined();
    mock.setStock(site!.code, point.code, 0, 1);
    const subscriber = subscribe(ALERTS, { sites: [site!.code] });
    await until(() => h!.gateway.live.subscriptions().stockAlerts === 1);
    await h.gateway.live.poller.pollNow(); // the baseline

    scheduler.tick(); // the one lane's last item sold
    expect(point.cargolanes[0]!.stock).toBe(0);
    await h.gateway.live.poller.pollNow();
    scheduler.tick(); // nothing left to sell; empty a second tick: refilled
    expect(point.cargolanes[0]!.stock).toBe(20);
    await h.gateway.live.poller.pollNow();
    const events = await subscriber.received(2);
    expect(events.map((event) => event.data.stockAlerts)).toEqual([
      { kind: 'LOW', site: { code: site!.code }, laneIndex: 0, stock: 0, previousStock: 1 },
      { kind: 'RESTOCKED', site: { code: site!.code }, laneIndex: 0, stock: 20, previousStock: 0 },
    ]);
  });

  it('sells as npm start runs it: the gateway process started with nothing configured pushes a changed site on its own', async () => {
    // src/main.ts in its own process, its default sales rate; polls twice a second so a change shows soon.
    const started = await startDemo({ LIVE_POLL_S: '0.5' });
    try {
      const subscriber = subscribeSse(started.url.replace(/\/graphql$/, ''), SITE_STOCK, { code: 'S000001' });
      subscribers.push(subscriber);
      const [first, second] = await subscriber.received(2);
      expect(first!.data.siteStock.code).toBe('S000001');
      expect(second!.data.siteStock).not.toEqual(first!.data.siteStock);
    } finally {
      subscribers.splice(0).forEach((subscriber) => subscriber.close());
      await started.stop();
    }
  }, 60_000);
});

