/**
 * The keep-alive of a WebSocket: only a pong that answers the server's ping, with its payload,
 * keeps a socket. Intervals are short here: a socket that answers is proven alive by the pings
 * it keeps receiving (the server checks the last answer before each), never by a wall clock.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startGateway, type Harness } from '../../helpers/gateway.js';
import { openRaw } from '../../helpers/websocket.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('GraphQL over WebSocket: keep-alive', () => {
  it('cuts off a socket that never answers a ping, however many pongs of its own it sends', async () => {
    h = await startGateway({ keepAliveMs: 50 });
    const socket = await openRaw(h.wsUrl, { autoPong: false });
    let pings = 0;
    socket.ws.pong(Buffer.from('unsolicited'));
    socket.ws.on('ping', () => {
      pings += 1;
      // A pong of its own between every two pings: it would satisfy a keep-alive that counts any pong.
      socket.ws.pong(Buffer.from(`unsolicited ${pings}`));
    });
    const closed = await socket.closed;
    expect(closed.code).toBe(1006); // terminated: no close frame
    expect(pings).toBeGreaterThanOrEqual(1);
  });

  it('keeps a socket that answers each ping with its payload', async () => {
    h = await startGateway({ keepAliveMs: 200 });
    const socket = await openRaw(h.wsUrl);
    const payloads: string[] = [];
    // The third ping comes only if the first two were answered (ws answers them itself).
    await new Promise<void>((resolve) => socket.ws.on('ping', (data) => payloads.push(data.toString('hex')) === 3 && resolve()));
    expect(socket.ws.readyState).toBe(socket.ws.OPEN);
    expect(new Set(payloads).size).toBe(3);
    socket.ws.close();
  });
});
