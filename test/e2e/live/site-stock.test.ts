/**
 * `Subscription.siteStock` over SSE, with poll rounds run by hand (`gateway.live.poller.pollNow`)
 * so that no test waits on a timer: one upstream call per round however many subscribers, an
 * event only on a change, the poll stopping when the last subscriber leaves, and an upstream
 * failure survived.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startGateway, type Harness } from '../../helpers/gateway.js';
import { until } from '../../helpers/http.js';
import { subscribeSse, type SseSubscriber } from '../../helpers/sse.js';

const SITE_STOCK = 'subscription Live($code: String!) { siteStock(code: $code) { code points { code cargoLanes { goodsCode stock } } } }';
const DETAIL = '/api/site/detail';
// Rounds run only when a test asks: the timer's own interval never comes within a test.
const ENV = { LIVE_POLL_S: '3600' };

// Private: the stock of the first lane of the first point in a siteStock event.
const firstLaneStock = (event: { data?: any }) => event.data.siteStock.points[0].cargoLanes[0].stock as number;

describe('siteStock', () => {
  let h: Harness;
  const subscribers: SseSubscriber[] = [];
  afterEach(async () => {
    subscribers.splice(0).forEach((subscriber) => subscriber.close());
    await h.close();
  });

  function subscribe(code: string, headers: Record<string, string> = {}): SseSubscriber {
    const subscriber = subscribeSse(h.url, SITE_STOCK, { code }, headers);
    subscribers.push(subscriber);
    return subscriber;
  }

  it('sends the site at once, then one event per change to 100 subscribers, from one upstream call per round', async () => {
    h = await startGateway({ env: ENV });
    const site = h.mock.catalog.sites[0]!;
    const point = site.points[0]!;
    const all = Array.from({ length: 100 }, () => subscribe(site.code));
    await Promise.all(all.map((subscriber) => subscriber.received(1)));
    expect(all.every((subscriber) => subscriber.events[0]!.data.siteStock.code === site.code)).toBe(true);

    const calls = h.mock.calls(DETAIL);
    await h.gateway.live.poller.pollNow(); // nothing changed: no event
    expect(h.mock.calls(DETAIL)).toBe(calls + 1);

    const stock = firstLaneStock(all[0]!.events[0]!) + 7;
    h.mock.setStock(site.code, point.code, 0, stock);
    await h.gateway.live.poller.pollNow();
    expect(h.mock.calls(DETAIL)).toBe(calls + 2);
    const second = await Promise.all(all.map((subscriber) => subscriber.received(2)));
    // Exactly two events each: the unchanged round sent nothing.
    expect(second.every((events) => events.length === 2 && firstLaneStock(events[1]!) === stock)).toBe(true);
  });

  it('stops polling a site when its last subscriber leaves', async () => {
    h = await startGateway({ env: ENV });
    const [a, b] = h.mock.catalog.sites;
    const first = subscribe(a!.code);
    const second = subscribe(b!.code);
    await Promise.all([first.received(1), second.received(1)]);
    expect(h.gateway.live.poller.watchedKeys()).toBe(2);
    first.close();
    await until(() => h.gateway.live.poller.watchedKeys() === 1);
    const calls = h.mock.calls(DETAIL);
    await h.gateway.live.poller.pollNow();
    expect(h.mock.calls(DETAIL)).toBe(calls + 1); // b only
    second.close();
    await until(() => h.gateway.live.poller.watchedKeys() === 0);
    await h.gateway.live.poller.pollNow();
    expect(h.mock.calls(DETAIL)).toBe(calls + 1);
    expect(h.gateway.live.subscriptions().siteStock).toBe(0);
  });

  it('sends one error event while the upstream is down for three rounds, then the site again, and updates resume', async () => {
    h = await startGateway({ env: { ...ENV, UPSTREAM_RETRIES: '0' } });
    const site = h.mock.catalog.sites[0]!;
    const subscriber = subscribe(site.code);
    await subscriber.received(1);
    h.mock.fault(DETAIL, 'http503');
    for (let round = 0; round < 3; round += 1) await h.gateway.live.poller.pollNow();
    const [, failure] = await subscriber.received(2);
    expect(failure!.errors?.map((error) => error.extensions?.code)).toEqual(['UPSTREAM_UNAVAILABLE']);
    h.mock.clearFaults();
    await h.gateway.live.poller.pollNow();
    const [, , back] = await subscriber.received(3);
    expect(back!.data.siteStock.code).toBe(site.code);
    h.mock.setStock(site.code, site.points[0]!.code, 0, firstLaneStock(back!) + 1);
    await h.gateway.live.poller.pollNow();
    const events = await subscriber.received(4);
    expect(firstLaneStock(events[3]!)).toBe(firstLaneStock(back!) + 1);
    expect(events).toHaveLength(4);
  });

  it('answers an unknown site with NOT_FOUND and ends the subscription', async () => {
    h = await startGateway({ env: ENV });
    const subscriber = subscribe('NO-SUCH-SITE');
    const [event] = await subscriber.received(1);
    expect(event!.errors?.map((error) => error.extensions?.code)).toEqual(['NOT_FOUND']);
    expect(await subscriber.ended).toBe(true);
  });

  it('refuses a client its subscription past LIVE_MAX_SUBSCRIPTIONS_PER_CLIENT', async () => {
    h = await startGateway({ env: { ...ENV, LIVE_MAX_SUBSCRIPTIONS_PER_CLIENT: '2', LIVE_MAX_SUBSCRIPTIONS: '10' } });
    const code = h.mock.catalog.sites[0]!.code;
    await Promise.all([subscribe(code).received(1), subscribe(code).received(1)]);
    const [refused] = await subscribe(code).received(1);
    expect(refused!.errors?.map((error) => error.extensions?.code)).toEqual(['TOO_MANY_SUBSCRIPTIONS']);
    expect(h.gateway.live.subscriptions().siteStock).toBe(2);
  });

  it('refuses any subscription past LIVE_MAX_SUBSCRIPTIONS, however few a client holds, and takes one again once another ends', async () => {
    h = await startGateway({ env: { ...ENV, LIVE_MAX_SUBSCRIPTIONS: '2', LIVE_MAX_SUBSCRIPTIONS_PER_CLIENT: '100' } });
    const code = h.mock.catalog.sites[0]!.code;
    const [first] = [subscribe(code), subscribe(code)];
    await Promise.all(subscribers.map((subscriber) => subscriber.received(1)));
    const [refused] = await subscribe(code).received(1);
    expect(refused!.errors?.map((error) => error.extensions?.code)).toEqual(['TOO_MANY_SUBSCRIPTIONS']);
    first!.close();
    await until(() => h.gateway.live.subscriptions().siteStock === 1);
    const [taken] = await subscribe(code).received(1);
    expect(taken!.data.siteStock.code).toBe(code);
  });

  it('ends every subscription when the gateway stops, and tells the client', async () => {
    h = await startGateway({ env: ENV });
    const subscriber = subscribe(h.mock.catalog.sites[0]!.code);
    await subscriber.received(1);
    h.gateway.live.close();
    expect(await subscriber.ended).toBe(true);
    expect(h.gateway.live.poller.watchedKeys()).toBe(0);
  });

  it('polls on its own every LIVE_POLL_S', async () => {
    h = await startGateway({ env: { LIVE_POLL_S: '0.2' } });
    const site = h.mock.catalog.sites[0]!;
    const subscriber = subscribe(site.code);
    const [first] = await subscriber.received(1);
    h.mock.setStock(site.code, site.points[0]!.code, 0, firstLaneStock(first!) + 3);
    const events = await subscriber.received(2);
    expect(firstLaneStock(events[1]!)).toBe(firstLaneStock(first!) + 3);
  });
});
