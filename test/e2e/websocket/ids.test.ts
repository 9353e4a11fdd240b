/**
 * Operation ids over WebSocket: an id still pending or running cannot be taken again (4409), and
 * whatever a socket started ends with it, however its messages arrive.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startGateway, type Harness } from '../../helpers/gateway.js';
import { openRaw } from '../../helpers/websocket.js';

const DETAIL = '/api/site/detail';
// Rounds run only when a test asks (`pollNow`).
const ENV = { LIVE_POLL_S: '3600' };

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** The probe: subscribe `a`, complete `a`, subscribe `a` again. */
const REUSE = (code: string) => [
  { type: 'subscribe', id: 'a', payload: siteStock(code) },
  { type: 'complete', id: 'a' },
  { type: 'subscribe', id: 'a', payload: siteStock(code) },
];
function siteStock(code: string) {
  return { query: `subscription { siteStock(code: "${code}") { code } }` };
}
// (code: string) => ({ query: `subscription { siteStock(code: "${code}") { code } }` });

describe('GraphQL over WebSocket: operation ids', () => {
  it('leaves nothing watched after subscribe, complete and subscribe again of one id in one write, then a close', async () => {
    h = await startGateway({ env: ENV });
    const socket = await openRaw(h.wsUrl);
    socket.sendTogether(...REUSE(h.mock.catalog.sites[9]!.code));
    socket.ws.close();
    await socket.closed;
    await expect.poll(() => h!.gateway.live.subscriptions()).toEqual({ siteStock: 0, productStock: 0, stockAlerts: 0 });
    await expect.poll(() => h!.gateway.live.poller.watchedKeys()).toBe(0);
    const calls = h.mock.calls(DETAIL);
    await h.gateway.live.poller.pollNow();
    expect(h.mock.calls(DETAIL)).toBe(calls);
  });

  it('leaves nothing watched after twenty sockets of that probe, and no operation held', async () => {
    h = await startGateway({ env: { ...ENV, WS_MAX_SOCKETS_PER_CLIENT: '20' } });
    const sockets = await Promise.all(Array.from({ length: 20 }, () => openRaw(h!.wsUrl)));
    sockets.forEach((socket, i) => {
      socket.sendTogether(...REUSE(h!.mock.catalog.sites[i]!.code));
      socket.ws.close();
    });
    await Promise.all(sockets.map((socket) => socket.closed));
    await expect.poll(() => h!.websocket.operations).toBe(0);
    await expect.poll(() => h!.gateway.live.poller.watchedKeys()).toBe(0);
    expect(h.gateway.live.subscriptions().siteStock).toBe(0);
  });

  it('closes with 4409 a subscribe that reuses an id whose operation has not ended, as graphql-ws does', async () => {
    h = await startGateway({ env: ENV });
    const socket = await openRaw(h.wsUrl);
    socket.sendTogether(...REUSE(h.mock.catalog.sites[9]!.code));
    expect(await socket.closed).toEqual({ code: 4409, reason: 'Subscriber for a already exists' });
    await expect.poll(() => h!.gateway.live.poller.watchedKeys()).toBe(0);
  });
});
