/**
 * A live subscription over SSE passes the same guards as a query: the API key, the rate limit,
 * the query limits and the argument checks, all before anything is watched.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startGateway, type Harness } from '../../helpers/gateway.js';
import { subscribeSse, type SseSubscriber } from '../../helpers/sse.js';

const KEY = 'live-key-0123456789abcdef';
const SITE_STOCK = 'subscription Live($code: String!) { siteStock(code: $code) { code } }';
const DEEP = 'subscription Deep($code: String!) { siteStock(code: $code) { points { cargoLanes { product { availability { site { code } } } } } } }';

describe('live subscriptions behind the guards', () => {
  let h: Harness;
  const subscribers: SseSubscriber[] = [];
  afterEach(async () => {
    subscribers.splice(0).forEach((subscriber) => subscriber.close());
    await h.close();
  });
  const subscribe = (query: string, headers: Record<string, string> = {}) => {
    const subscriber = subscribeSse(h.url, query, { code: h.mock.catalog.sites[0]!.code }, headers);
    subscribers.push(subscriber);
    return subscriber;
  };

  it('needs an API key when keys are set, and counts against the rate limit', async () => {
    h = await startGateway({ env: { LIVE_POLL_S: '3600', GATEWAY_API_KEYS: KEY, RATE_LIMIT_PER_MINUTE: '2' } });
    expect(await subscribe(SITE_STOCK).status).toBe(401);
    const [first] = await subscribe(SITE_STOCK, { 'x-api-key': KEY }).received(1);
    expect(first!.data.siteStock.code).toBe(h.mock.catalog.sites[0]!.code);
    expect(await subscribe(SITE_STOCK, { 'x-api-key': KEY }).status).toBe(200);
    expect(await subscribe(SITE_STOCK, { 'x-api-key': KEY }).status).toBe(429);
    expect(h.gateway.live.poller.watchedKeys()).toBe(1);
  });

  it('refuses a subscription over the query limits without watching anything', async () => {
    h = await startGateway({ env: { LIVE_POLL_S: '3600', MAX_QUERY_DEPTH: '4' } });
    const [refused] = await subscribe(DEEP).received(1);
    expect(refused!.errors?.map((error) => error.extensions?.code)).toEqual(['DEPTH_LIMIT_EXCEEDED']);
    expect(refused!.data).toBeUndefined();
    expect(h.gateway.live.subscriptions().siteStock).toBe(0);
    expect(h.gateway.live.poller.watchedKeys()).toBe(0);
  });
});
