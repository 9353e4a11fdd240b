/**
 * The limits of live subscriptions hold against a burst and bound what is watched: a place is
 * taken when a subscription is admitted (not when its stream first runs) and given back once
 * whatever way it ends; a subscription that would watch too many sites, for its client or for
 * the gateway, is refused before it watches anything.
 */
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startGateway, type Harness } from '../../helpers/gateway.js';
import { until } from '../../helpers/http.js';
import { subscribeSse, type SseSubscriber } from '../../helpers/sse.js';

const SITE_STOCK = 'subscription Live($code: String!) { siteStock(code: $code) { code } }';
const ALERTS = 'subscription A($sites: [String!]) { stockAlerts(siteCodes: $sites) { kind } }';
const PRODUCT = 'subscription P($g: String!) { productStock(goodsCode: $g) { totalStock } }';
// Rounds run only when a test asks; no rate limit or operations bound in the way of a burst.
const ENV = { LIVE_POLL_S: '3600', RATE_LIMIT_PER_MINUTE: '0', WS_MAX_OPERATIONS_PER_SOCKET: '1000' };

/** What one operation id of a raw socket got first: data, or the code of the error that refused it. */
type Outcome = { data: true } | { refused: unknown };

/** A raw graphql-transport-ws socket, acknowledged. */
async function rawSocket(h: Harness): Promise<{ socket: WebSocket; outcomes: Map<string, Outcome>; closed: Promise<void> }> {
  const socket = new WebSocket(h.wsUrl, 'graphql-transport-ws');
  const outcomes = new Map<string, Outcome>();
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  const acked = new Promise<void>((resolve, reject) => {
    socket.on('message', (data) => {
      const message = JSON.parse(String(data)) as { type: string; id?: string; payload?: any };
      if (message.type === 'connection_ack') return resolve();
      if (message.id === undefined || outcomes.has(message.id)) return;
      // A refused subscription is one result with errors (a `next`, then `complete`), or an `error` message.
      const errors = message.type === 'error' ? message.payload : message.payload?.errors;
      if (message.type === 'next' && errors === undefined) outcomes.set(message.id, { data: true });
      else if (message.type === 'next' || message.type === 'error') outcomes.set(message.id, { refused: errors?.[0]?.extensions?.code });
    });
    socket.once('close', () => reject(new Error('closed before the acknowledgement')));
  });
  await new Promise<void>((resolve) => socket.once('open', () => resolve()));
  socket.send(JSON.stringify({ type: 'connection_init' }));
  await acked;
  return { socket, outcomes, closed };
}

describe('live subscription limits', () => {
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
  const codesOf = (event: { errors?: Array<{ extensions?: Record<string, unknown> }> }) => event.errors?.map((error) => error.extensions?.code);

  it('lets exactly LIVE_MAX_SUBSCRIPTIONS_PER_CLIENT of 300 subscribes sent in one burst over one WebSocket through, and frees every place once the socket closes', async () => {
    h = await startGateway({ env: { ...ENV, LIVE_MAX_SUBSCRIPTIONS_PER_CLIENT: '10' } });
    const code = h.mock.catalog.sites[0]!.code;
    const { socket, outcomes, closed } = await rawSocket(h);
    for (let id = 0; id < 300; id += 1) {
      socket.send(JSON.stringify({ id: String(id), type: 'subscribe', payload: { query: SITE_STOCK, variables: { code } } }));
    }
    await until(() => outcomes.size === 300);
    const refusals = [...outcomes.values()].filter((outcome) => 'refused' in outcome);
    expect(300 - refusals.length).toBe(10);
    expect(new Set(refusals.map((outcome) => (outcome as { refused: unknown }).refused))).toEqual(new Set(['TOO_MANY_SUBSCRIPTIONS']));
    expect(h.gateway.live.subscriptions().siteStock).toBe(10);
    socket.close();
    await closed;
    await until(() => h.gateway.live.subscriptions().siteStock === 0);
    expect(h.gateway.live.poller.watchedKeys()).toBe(0);
  });

  it('lets exactly LIVE_MAX_SUBSCRIPTIONS_PER_CLIENT of 60 subscriptions asked for at once over SSE through, and frees every place once they are closed', async () => {
    h = await startGateway({ env: { ...ENV, LIVE_MAX_SUBSCRIPTIONS_PER_CLIENT: '10' } });
    const code = h.mock.catalog.sites[0]!.code;
    const all = Array.from({ length: 60 }, () => subscribe(SITE_STOCK, { code }));
    const firsts = await Promise.all(all.map(async (subscriber) => (await subscriber.received(1))[0]!));
    expect(firsts.filter((event) => event.data?.siteStock?.code === code)).toHaveLength(10);
    expect(firsts.filter((event) => codesOf(event)?.[0] === 'TOO_MANY_SUBSCRIPTIONS')).toHaveLength(50);
    subscribers.splice(0).forEach((subscriber) => subscriber.close());
    await until(() => h.gateway.live.subscriptions().siteStock === 0);
    expect(h.gateway.live.poller.watchedKeys()).toBe(0);
  });

  it('counts a subscription from its admission, and gives its place back once when its stream is returned or thrown into before it ever ran', async () => {
    h = await startGateway({ env: { ...ENV, LIVE_MAX_SUBSCRIPTIONS_PER_CLIENT: '2' } });
    const [a, b] = h.mock.catalog.sites.map((site) => site.code);
    const { live } = h.gateway;
    const first = live.siteStock(a!, 'ip:192.0.2.1')[Symbol.asyncIterator]();
    const second = live.stockAlerts({ siteCodes: new Set([a!, b!]), threshold: 0 }, 'ip:192.0.2.1')[Symbol.asyncIterator]();
    expect(live.subscriptions()).toEqual({ siteStock: 1, productStock: 0, stockAlerts: 1 });
    expect(() => live.siteStock(b!, 'ip:192.0.2.1')).toThrow(expect.objectContaining({ extensions: { code: 'TOO_MANY_SUBSCRIPTIONS' } }));
    expect(await first.return!()).toEqual({ done: true, value: undefined });
    await first.return!(); // again: nothing more to give back
    await second.throw!(new Error('the client left')).catch(() => undefined);
    expect(live.subscriptions()).toEqual({ siteStock: 0, productStock: 0, stockAlerts: 0 });
    // Two places, not three or four: each was given back once.
    const held = [live.siteStock(a!, 'ip:192.0.2.1'), live.siteStock(b!, 'ip:192.0.2.1')].map((stream) => stream[Symbol.asyncIterator]());
    expect(() => live.siteStock(a!, 'ip:192.0.2.1')).toThrow(expect.objectContaining({ extensions: { code: 'TOO_MANY_SUBSCRIPTIONS' } }));
    await Promise.all(held.map((iterator) => iterator.return!()));
    expect(live.subscriptions().siteStock).toBe(0);
    expect(live.poller.watchedKeys()).toBe(0);
    // Stopping the gateway gives back the places of streams that never ran, too.
    live.siteStock(a!, 'ip:192.0.2.1');
    live.close();
    await until(() => live.subscriptions().siteStock === 0);
  });

  it('refuses a subscription that would make its client watch more than LIVE_MAX_WATCHED_KEYS_PER_CLIENT sites, before it watches any, and counts a site watched twice once', async () => {
    h = await startGateway({ env: { ...ENV, LIVE_MAX_WATCHED_KEYS_PER_CLIENT: '3' } });
    const [a, b, c, d] = h.mock.catalog.sites.map((site) => site.code);
    subscribe(ALERTS, { sites: [a, b] });
    await until(() => h.gateway.live.subscriptions().stockAlerts === 1);
    // a and b again, and c: three distinct sites, the limit.
    subscribe(ALERTS, { sites: [a, b, c] });
    await until(() => h.gateway.live.subscriptions().stockAlerts === 2);
    expect(h.gateway.live.poller.watchedKeys()).toBe(3);
    const [refused] = await subscribe(SITE_STOCK, { code: d }).received(1);
    expect(codesOf(refused!)).toEqual(['TOO_MANY_WATCHED_KEYS']);
    expect(refused!.errors![0]!.message).toMatch(/one client/);
    // Every site is one more thing watched, too.
    const [everySite] = await subscribe(PRODUCT, { g: 'any' }).received(1);
    expect(codesOf(everySite!)).toEqual(['TOO_MANY_WATCHED_KEYS']);
    expect(h.gateway.live.poller.watchedKeys()).toBe(3);
    expect(h.gateway.live.subscriptions()).toEqual({ siteStock: 0, productStock: 0, stockAlerts: 2 });
    // A site already watched adds nothing.
    const [again] = await subscribe(SITE_STOCK, { code: a }).received(1);
    expect(again!.data?.siteStock.code).toBe(a);
  });

  it('refuses a subscription past LIVE_MAX_WATCHED_KEYS whatever its client holds, and takes it once the sites watched are given back', async () => {
    h = await startGateway({ env: { ...ENV, LIVE_MAX_WATCHED_KEYS: '2', LIVE_MAX_WATCHED_KEYS_PER_CLIENT: '100' } });
    const [a, b, c] = h.mock.catalog.sites.map((site) => site.code);
    const first = subscribe(ALERTS, { sites: [a, b] });
    await until(() => h.gateway.live.subscriptions().stockAlerts === 1);
    const [refused] = await subscribe(SITE_STOCK, { code: c }).received(1);
    expect(codesOf(refused!)).toEqual(['TOO_MANY_WATCHED_KEYS']);
    expect(refused!.errors![0]!.message).toMatch(/this gateway/);
    expect(h.gateway.live.poller.watchedKeys()).toBe(2);
    first.close();
    await until(() => h.gateway.live.poller.watchedKeys() === 0);
    const [taken] = await subscribe(SITE_STOCK, { code: c }).received(1);
    expect(taken!.data?.siteStock.code).toBe(c);
  });
});
