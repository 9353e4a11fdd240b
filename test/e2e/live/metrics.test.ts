import { afterEach, describe, expect, it } from 'vitest';
import { startGateway, type Harness } from '../../helpers/gateway.js';
import { metric, scrape } from '../../helpers/http.js';
import { subscribeSse, type SseSubscriber } from '../../helpers/sse.js';

const SITE_STOCK = 'subscription Live($code: String!) { siteStock(code: $code) { code points { cargoLanes { stock } } } }';

describe('live stock metrics', () => {
  let h: Harness;
  const subscribers: SseSubscriber[] = [];
  afterEach(async () => {
    subscribers.splice(0).forEach((subscriber) => subscriber.close());
    await h.close();
  });

  it('show the subscriptions open, the sites watched, the rounds with their upstream calls, and the events sent', async () => {
    h = await startGateway({ env: { LIVE_POLL_S: '3600', UPSTREAM_RETRIES: '0' } });
    const [a, b] = h.mock.catalog.sites;
    for (const code of [a!.code, a!.code, b!.code]) subscribers.push(subscribeSse(h.url, SITE_STOCK, { code }));
    await Promise.all(subscribers.map((subscriber) => subscriber.received(1)));
    await h.gateway.live.poller.pollNow();
    h.mock.fault('/api/site/detail', 'http503');
    await h.gateway.live.poller.pollNow();
    await Promise.all(subscribers.map((subscriber) => subscriber.received(2)));

    const text = await scrape(h);
    expect(metric(text, 'gateway_live_subscriptions', { field: 'siteStock' })).toBe(3);
    expect(metric(text, 'gateway_live_watched_keys')).toBe(2);
    expect(metric(text, 'gateway_live_polls_total', { plan: 'detail', outcome: 'ok' })).toBe(1);
    expect(metric(text, 'gateway_live_polls_total', { plan: 'detail', outcome: 'error' })).toBe(1);
    expect(metric(text, 'gateway_live_poll_calls_total')).toBe(4);
    // The first event of each, then one error event each.
    expect(metric(text, 'gateway_live_events_total', { field: 'siteStock' })).toBe(6);
  });
});
