/**
 * Live stock across two replicas sharing one Redis (a redis-server of the test's own) and one
 * mock upstream: one replica polls each watched site for the fleet under a lease and publishes
 * what it read, both deliver to their own subscribers; the lease passes to the other replica
 * when its holder stops, leaves the site, or dies; with Redis gone, each polls for itself.
 * Rounds are run by hand (`pollNow`) where calls are counted; waits are generous, never timed.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { MockSite } from '../../../src/mock-upstream/index.js';
import type { Harness } from '../../helpers/gateway.js';
import { until } from '../../helpers/http.js';
import { subscribeSse, type SseSubscriber } from '../../helpers/sse.js';
import { readiness, startFleet, type Fleet } from '../fleet/fleet.js';

const SITE_STOCK = 'subscription Live($code: String!) { siteStock(code: $code) { code points { code cargoLanes { goodsCode stock } } } }';
const PRODUCT_STOCK = 'subscription P($g: String!) { productStock(goodsCode: $g) { goodsCode totalStock } }';
const DETAIL = '/api/site/detail';
const PAGES = '/api/site/list-with-points';
// Rounds run only when a test asks: the timer's own interval never comes within a test.
const BY_HAND = { LIVE_POLL_S: '3600' };

// Private: the stock of the first lane of the first point in a siteStock event.
const firstLaneStock = (event: { data?: any }) => event.data?.siteStock?.points[0].cargoLanes[0].stock as number | undefined;

describe('live stock in a fleet', () => {
  let fleet: Fleet | undefined;
  const subscribers: SseSubscriber[] = [];
  afterEach(async () => {
    subscribers.splice(0).forEach((subscriber) => subscriber.close());
    await fleet?.close();
    fleet = undefined;
  });

  async function start(env: Record<string, string>): Promise<Fleet> {
    fleet = await startFleet({ env });
    // A test may stop a replica itself; the fleet's close then leaves it be.
    for (const h of [fleet.a, fleet.b]) {
      const close = h.close;
      let closing: Promise<void> | undefined;
      h.close = () => (closing ??= close());
    }
    return fleet;
  }

  function subscribe(h: Harness, code: string): SseSubscriber {
    const subscriber = subscribeSse(h.url, SITE_STOCK, { code });
    subscribers.push(subscriber);
    return subscriber;
  }

  // Private: the first lane of a site's first point, and a stock it does not hold yet.
  function lane(f: Fleet, siteIndex = 0) {
    const site = f.mock.catalog.sites[siteIndex]!;
    let stock = 40;
    return { code: site.code, next: () => (stock += 1), set: (value: number) => f.mock.setStock(site.code, site.points[0]!.code, 0, value) };
  }

  // Private: the channel of live reads, once a replica listens to it.
  async function readsChannel(f: Fleet): Promise<string> {
    let channels: string[] = [];
    await until(async () => (channels = await f.redis.client().pubsub('CHANNELS', 'vg:v1:live:*') as string[]).length > 0);
    return channels[0]!;
  }

  const sawStock = (subscriber: SseSubscriber, stock: number) => () => subscriber.events.some((event) => firstLaneStock(event) === stock);

  it('polls a site watched on both replicas once per round for the fleet, and sends each change to the subscribers of both', async () => {
    const { a, b, mock } = await start(BY_HAND);
    const site = lane(fleet!);
    const [onA, onB] = [subscribe(a, site.code), subscribe(b, site.code)];
    await Promise.all([onA.received(1), onB.received(1)]);

    const calls = mock.calls(DETAIL);
    await a.gateway.live.poller.pollNow();
    await b.gateway.live.poller.pollNow();
    expect(mock.calls(DETAIL)).toBe(calls + 1);

    const stock = site.next();
    site.set(stock);
    await b.gateway.live.poller.pollNow();
    await a.gateway.live.poller.pollNow();
    expect(mock.calls(DETAIL)).toBe(calls + 2);
    const [eventsA, eventsB] = await Promise.all([onA.received(2), onB.received(2)]);
    expect([firstLaneStock(eventsA[1]!), firstLaneStock(eventsB[1]!)]).toEqual([stock, stock]);

    // A third change: still one call a round, and one event each per change (none for the round without one).
    const third = site.next();
    site.set(third);
    await a.gateway.live.poller.pollNow();
    await b.gateway.live.poller.pollNow();
    expect(mock.calls(DETAIL)).toBe(calls + 3);
    await Promise.all([onA.received(3), onB.received(3)]);
    expect([onA.events, onB.events].map((events) => events.map(firstLaneStock).slice(1))).toEqual([[stock, third], [stock, third]]);
  });

  it('walks every site once per round for the fleet for productStock subscribers on both replicas, and sends both the new total', async () => {
    const { a, b, mock } = await start(BY_HAND);
    const { site, point, laneIndex, goodsCode } = laneHoldingStock(mock.catalog.sites);
    const [onA, onB] = [a, b].map((h) => {
      const subscriber = subscribeSse(h.url, PRODUCT_STOCK, { g: goodsCode });
      subscribers.push(subscriber);
      return subscriber;
    }) as [SseSubscriber, SseSubscriber];
    const [[first]] = await Promise.all([onA.received(1), onB.received(1)]);
    const total = first!.data.productStock.totalStock as number;

    // The mock answers at most 50 items a page (its default cap), which the index's walk learnt.
    const pages = Math.ceil(mock.catalog.sites.length / 50);
    const calls = mock.calls(PAGES);
    await a.gateway.live.poller.pollNow();
    await b.gateway.live.poller.pollNow();
    expect(mock.calls(PAGES)).toBe(calls + pages);
    mock.setStock(site.code, point.code, laneIndex, point.cargolanes[laneIndex]!.stock + 5);
    await a.gateway.live.poller.pollNow();
    await b.gateway.live.poller.pollNow();
    expect(mock.calls(PAGES)).toBe(calls + 2 * pages);
    const [eventsA, eventsB] = await Promise.all([onA.received(2), onB.received(2)]);
    expect([eventsA, eventsB].map((events) => events.map((event) => event.data.productStock.totalStock))).toEqual([[total, total + 5], [total, total + 5]]);
  });

  it('hands the lease over when the polling replica stops, and the other replica polls the site on its own', async () => {
    const { a, b, redis } = await start({ LIVE_POLL_S: '0.3' });
    const site = lane(fleet!);
    const onA = subscribe(a, site.code);
    await onA.received(1);
    await a.gateway.live.poller.pollNow(); // a holds the lease: b watches nothing yet
    const [lease] = await redis.client().keys(`vg:v1:live:*:lease:site:${site.code}`);
    const holderA = await redis.client().get(lease!);
    expect(holderA).toEqual(expect.any(String));

    const onB = subscribe(b, site.code);
    await onB.received(1);
    const first = site.next();
    site.set(first);
    await until(() => sawStock(onA, first)() && sawStock(onB, first)());
    expect(await redis.client().get(lease!)).toBe(holderA);

    // As on SIGTERM: a's subscriptions end, its lease is given up, then it closes.
    a.gateway.live.close();
    await a.close();
    await until(async () => ![null, holderA].includes(await redis.client().get(lease!)));
    const second = site.next();
    site.set(second);
    await until(sawStock(onB, second));
  });

  it('takes over the lease of a replica that died once it runs out, before its own next round', async () => {
    const { b, mock, redis } = await start(BY_HAND);
    const site = lane(fleet!);
    const onB = subscribe(b, site.code);
    await onB.received(1);
    // A replica that died holding the site's lease: it neither renews nor releases it.
    const lease = `${(await readsChannel(fleet!)).replace(/reads$/, '')}lease:site:${site.code}`;
    await redis.client().set(lease, 'a-replica-that-died', 'PX', 1500);

    const calls = mock.calls(DETAIL);
    await b.gateway.live.poller.pollNow();
    expect(mock.calls(DETAIL)).toBe(calls); // the lease still holds
    const stock = site.next();
    site.set(stock);
    await until(sawStock(onB, stock)); // no round by hand: the lease ran out, b claimed it
    expect(mock.calls(DETAIL)).toBe(calls + 1);
    expect(await redis.client().get(lease)).not.toBe('a-replica-that-died');
  });

  it('never lets a lease outlive one interval: a replica that dies is taken over within LIVE_POLL_S', async () => {
    const { a, redis } = await start({ LIVE_POLL_S: '4' });
    const site = lane(fleet!);
    await subscribe(a, site.code).received(1);
    await a.gateway.live.poller.pollNow();
    const lease = `${(await readsChannel(fleet!)).replace(/reads$/, '')}lease:site:${site.code}`;
    const ttl = await redis.client().pttl(lease);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(4000);
  });

  it('gives up the lease of a site nobody watches on its replica any more, and a replica still watching it polls at once', async () => {
    const { a, b, mock } = await start(BY_HAND);
    const site = lane(fleet!);
    const onA = subscribe(a, site.code);
    await onA.received(1);
    await a.gateway.live.poller.pollNow();
    const onB = subscribe(b, site.code);
    await onB.received(1);
    const calls = mock.calls(DETAIL);
    await b.gateway.live.poller.pollNow();
    expect(mock.calls(DETAIL)).toBe(calls); // a polls it

    const stock = site.next();
    site.set(stock);
    onA.close();
    // No round by hand: a released the lease once it saw the client leave (slow to see), b claimed it.
    await until(sawStock(onB, stock), 30_000);
    expect(mock.calls(DETAIL)).toBe(calls + 1);
  });

  it('keeps sending changes to the subscribers of both replicas while Redis is stopped, each replica polling for itself, and shares the polling again once it is back', async () => {
    const { a, b, mock, redis } = await start(BY_HAND);
    const site = lane(fleet!);
    const [onA, onB] = [subscribe(a, site.code), subscribe(b, site.code)];
    await Promise.all([onA.received(1), onB.received(1)]);
    const channel = await readsChannel(fleet!);
    await a.gateway.live.poller.pollNow();

    await redis.stop();
    await until(async () => (await readiness(a)).body.redis === 'down' && (await readiness(b)).body.redis === 'down');
    const whileDown = site.next();
    site.set(whileDown);
    const calls = mock.calls(DETAIL);
    await a.gateway.live.poller.pollNow();
    await b.gateway.live.poller.pollNow();
    expect(mock.calls(DETAIL)).toBe(calls + 2);
    await until(() => sawStock(onA, whileDown)() && sawStock(onB, whileDown)());

    await redis.start();
    // Both replicas use Redis again, and both hear the channel of reads.
    const hearing = async () => Number((await redis.client().pubsub('NUMSUB', channel))[1]);
    await until(async () => (await readiness(a)).body.redis === 'up' && (await readiness(b)).body.redis === 'up' && (await hearing()) === 2);
    const back = site.next();
    site.set(back);
    await a.gateway.live.poller.pollNow();
    await b.gateway.live.poller.pollNow();
    expect(mock.calls(DETAIL)).toBe(calls + 3);
    await until(() => sawStock(onA, back)() && sawStock(onB, back)());
    expect([onA.events, onB.events].map((events) => events.length)).toEqual([3, 3]);
    expect(subscribers.every((subscriber) => subscriber.events.every((event) => event.errors === undefined))).toBe(true);
  });
});

// Private: a lane with a product in stock, in a site in service (the only ones productStock counts).
function laneHoldingStock(sites: readonly MockSite[]) {
  for (const site of sites.filter((candidate) => candidate.state === 1)) {
    for (const point of site.points) {
      const laneIndex = point.cargolanes.findIndex((lane) => lane.goodsCode !== undefined && lane.stock > 0);
      if (laneIndex !== -1) return { site, point, laneIndex, goodsCode: point.cargolanes[laneIndex]!.goodsCode! };
    }
  }
  throw new Error('no lane in stock');
}
