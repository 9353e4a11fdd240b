/**
 * Where a request came from (`TRUST_PROXY`): the socket's address, or the client the trusted
 * proxies name in `X-Forwarded-For`; and the live subscriptions' per-client limit, over SSE and
 * over a WebSocket's upgrade request, knowing clients that way.
 */
import type { IncomingMessage } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { parseTrustProxy } from '../../../src/base/config/trust-proxy.js';
import { createAddressOf } from '../../../src/request/client-address.js';
import { startGateway, type Harness } from '../../helpers/gateway.js';
import { subscribeSse } from '../../helpers/sse.js';
import { subscribeWs } from '../../helpers/websocket.js';

function request(socketAddress: string, forwardedFor?: string): IncomingMessage {
  return { headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor }, socket: { remoteAddress: socketAddress } } as never;
}

describe('the address a request came from', () => {
  it('is the socket\'s without TRUST_PROXY (or with 0), whatever X-Forwarded-For says', () => {
    for (const addressOf of [createAddressOf(undefined), createAddressOf({ hops: 0 })]) {
      expect(addressOf(request('10.1.2.3', '203.0.113.1'))).toBe('10.1.2.3');
    }
  });

  it('trusts as many proxies as TRUST_PROXY counts, nearest first', () => {
    const chain = request('10.1.2.3', '198.51.100.9, 203.0.113.1, 10.0.0.7');
    expect(createAddressOf({ hops: 1 })(chain)).toBe('10.0.0.7');
    expect(createAddressOf({ hops: 2 })(chain)).toBe('203.0.113.1');
    expect(createAddressOf({ hops: 3 })(chain)).toBe('198.51.100.9');
    expect(createAddressOf({ hops: 9 })(chain)).toBe('198.51.100.9');
    expect(createAddressOf({ hops: 1 })(request('10.1.2.3'))).toBe('10.1.2.3');
  });

  it('trusts the addresses and ranges TRUST_PROXY lists, IPv4 and IPv6, and stops at the first it does not', () => {
    const addressOf = createAddressOf({ addresses: ['10.0.0.0/8', 'fd00::/8'] });
    expect(addressOf(request('10.1.2.3', '198.51.100.9, 203.0.113.1, 10.0.0.7'))).toBe('203.0.113.1');
    expect(addressOf(request('::ffff:10.1.2.3', '203.0.113.1'))).toBe('203.0.113.1');
    expect(addressOf(request('fd00::1', '2001:db8::5'))).toBe('2001:db8::5');
    // Not from a trusted proxy: the header is the client's own say, and ignored.
    expect(addressOf(request('192.0.2.4', '203.0.113.1'))).toBe('192.0.2.4');
  });

  it('reads TRUST_PROXY as a hop count or a list, naming what is neither an address nor a range', () => {
    expect(parseTrustProxy(' 2 ')).toEqual({ trust: { hops: 2 } });
    expect(parseTrustProxy('10.0.0.0/8, 127.0.0.1 ,::1,fd00::/8,loopback')).toEqual({
      trust: { addresses: ['10.0.0.0/8', '127.0.0.1', '::1', 'fd00::/8', 'loopback'] },
    });
    expect(parseTrustProxy('101')).toEqual({ invalid: ['101'] });
    expect(parseTrustProxy('10.0.0.0/33,127.0.0.1,proxy.internal,')).toEqual({ invalid: ['10.0.0.0/33', 'proxy.internal', ''] });
    expect(parseTrustProxy('true')).toEqual({ invalid: ['true'] });
  });
});

describe('live subscriptions per client behind proxies', () => {
  const SITE_STOCK = 'subscription Live($code: String!) { siteStock(code: $code) { code } }';
  let h: Harness | undefined;
  const subscribers: Array<{ close(): unknown }> = [];
  afterEach(async () => {
    subscribers.splice(0).forEach((subscriber) => subscriber.close());
    await h?.close();
    h = undefined;
  });

  it('counts LIVE_MAX_SUBSCRIPTIONS_PER_CLIENT per X-Forwarded-For client with TRUST_PROXY, over SSE and WebSocket', async () => {
    h = await startGateway({ env: { LIVE_POLL_S: '3600', LIVE_MAX_SUBSCRIPTIONS_PER_CLIENT: '1', TRUST_PROXY: '1' } });
    const variables = { code: h.mock.catalog.sites[0]!.code };
    const overSse = (forwardedFor: string) => {
      const subscriber = subscribeSse(h!.url, SITE_STOCK, variables, { 'x-forwarded-for': forwardedFor });
      subscribers.push(subscriber);
      return subscriber.received(1).then(([first]) => first!);
    };
    const overSocket = (forwardedFor: string) => {
      // The upgrade request carries the header, as a proxy in front would add it.
      const webSocketImpl = class extends WebSocket {
        constructor(url: string, protocols?: string | string[]) {
          super(url, protocols, { headers: { 'x-forwarded-for': forwardedFor } });
        }
      };
      const subscriber = subscribeWs(h!.wsUrl, SITE_STOCK, variables, { webSocketImpl });
      subscribers.push(subscriber);
      return subscriber.received(1).then(([first]) => first!);
    };
    const codes = (event: { errors?: readonly { extensions?: Record<string, unknown> }[] }) => event.errors?.map((error) => error.extensions?.code);

    expect((await overSse('203.0.113.1')).data).toEqual({ siteStock: variables });
    expect((await overSse('203.0.113.2')).data).toEqual({ siteStock: variables });
    expect(codes(await overSocket('203.0.113.1'))).toEqual(['TOO_MANY_SUBSCRIPTIONS']);
    expect(codes(await overSse('203.0.113.2'))).toEqual(['TOO_MANY_SUBSCRIPTIONS']);
    expect((await overSocket('203.0.113.3')).data).toEqual({ siteStock: variables });
  });
});
