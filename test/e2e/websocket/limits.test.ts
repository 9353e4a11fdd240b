/**
 * What one WebSocket, and one client's sockets, may hold: operations in flight per socket, bytes
 * a client leaves unread, sockets per client; and an upgrade pays one request of the rate limit.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type WebSocket from 'ws';
import { startGateway, type Harness } from '../../helpers/gateway.js';
import { openRaw, rawSocketOf, upgrade, type RawMessage, type RawSocket } from '../../helpers/websocket.js';

const KEY = 'websocket-limits-key-0123456789';
/** About 68 KB of answer in the demo catalog. */
const LARGE = '{ sites(pageSize: 100) { items { code name points { code cargoLanes { stock product { productName } } } } } }';

let h: Harness | undefined;
const opened: WebSocket[] = [];
afterEach(async () => {
  opened.splice(0).forEach((ws) => ws.terminate());
  await h?.close();
  h = undefined;
});

const siteStock = (code: string) => ({ query: `subscription { siteStock(code: "${code}") { code } }` });
const codesOf = (messages: RawMessage[]) => messages.flatMap((message) => (message.type === 'error' ? message.payload : message.payload?.errors ?? []))
  .map((error: { extensions?: { code?: unknown } }) => error.extensions?.code);

/** Resolves once `socket` has received a `next` for each of `ids`. */
async function nextsFor(socket: RawSocket, ...ids: string[]): Promise<void> {
  const has = () => ids.every((id) => socket.messages.events.some((message) => message.id === id && message.type === 'next'));
  while (!has()) await socket.messages.received(socket.messages.events.length + 1);
}

describe('GraphQL over WebSocket: operations per socket (WS_MAX_OPERATIONS_PER_SOCKET)', () => {
  it('refuses one operation more than the bound with TOO_MANY_OPERATIONS, keeps the socket, and a complete frees a place', async () => {
    h = await startGateway({ env: { LIVE_POLL_S: '3600', WS_MAX_OPERATIONS_PER_SOCKET: '2' } });
    const [a, b, c] = h.mock.catalog.sites;
    const socket = await openRaw(h.wsUrl);
    socket.subscribe('1', siteStock(a!.code));
    socket.subscribe('2', siteStock(b!.code));
    await nextsFor(socket, '1', '2');
    socket.subscribe('3', siteStock(c!.code));
    const refused = await socket.outcome('3');
    expect(refused.map((message) => message.type)).toEqual(['error']);
    expect(codesOf(refused)).toEqual(['TOO_MANY_OPERATIONS']);

    socket.ws.send(JSON.stringify({ type: 'complete', id: '1' }));
    await expect.poll(() => h!.websocket.operations).toBe(1);
    socket.subscribe('4', siteStock(c!.code));
    await nextsFor(socket, '4');
    expect(h.gateway.live.poller.watchedKeys()).toBe(2);
    socket.ws.close();
    await socket.closed;
    await expect.poll(() => h!.websocket.operations).toBe(0);
  });
});

describe('GraphQL over WebSocket: a client that does not read (WS_MAX_BUFFERED_BYTES)', () => {
  it('closes with 1008 the socket of a client that stops reading while it asks for large answers, and ends every operation on it', async () => {
    h = await startGateway({ env: { WS_MAX_BUFFERED_BYTES: '65536', WS_MAX_OPERATIONS_PER_SOCKET: '1000', RATE_LIMIT_PER_MINUTE: '0' } });
    await h.query(LARGE); // stored: each operation is then served from the response cache, cheaply
    const socket = await openRaw(h.wsUrl);
    rawSocketOf(socket.ws).pause();
    const sent = 300; // about 20 MB of answers: far more than the kernel's buffers take
    for (let id = 0; id < sent; id += 1) socket.subscribe(String(id), { query: LARGE });
    await expect.poll(() => h!.logs.some((line) => line.includes('closing a WebSocket whose client does not read'))).toBe(true);
    await expect.poll(() => h!.websocket.operations).toBe(0);

    rawSocketOf(socket.ws).resume();
    expect(await socket.closed).toEqual({ code: 1008, reason: 'The client does not read its messages' });
    const answers = socket.messages.events.filter((message) => message.type === 'next').length;
    expect(answers).toBeLessThan(sent);
  });
});

describe('GraphQL over WebSocket: sockets per client (WS_MAX_SOCKETS_PER_CLIENT) and the rate limit', () => {
  const open = async (answer: ReturnType<typeof upgrade>) => {
    const settled = await answer;
    if (!('opened' in settled)) throw new Error(`refused with ${settled.status}`);
    opened.push(settled.opened);
    return settled.opened;
  };

  it('refuses one socket more than the bound with a plain 429 TOO_MANY_CONNECTIONS, and a closed socket frees its place', async () => {
    h = await startGateway({ env: { WS_MAX_SOCKETS_PER_CLIENT: '2' } });
    const first = await open(upgrade(h.wsUrl));
    await open(upgrade(h.wsUrl));
    const refused = await upgrade(h.wsUrl);
    expect(refused).toMatchObject({ status: 429, headers: { 'content-type': 'application/json' } });
    expect((refused as { body: unknown }).body).toEqual({
      errors: [{ message: expect.stringContaining('Too many WebSocket connections'), extensions: { code: 'TOO_MANY_CONNECTIONS' } }],
    });

    first.close();
    await expect.poll(() => h!.websocket.connections).toBe(1);
    await open(upgrade(h.wsUrl));
  });

  it('counts a client by the API key of its upgrade headers, else by its address', async () => {
    h = await startGateway({ env: { WS_MAX_SOCKETS_PER_CLIENT: '1', GATEWAY_API_KEYS: KEY } });
    await open(upgrade(h.wsUrl));
    expect(await upgrade(h.wsUrl)).toMatchObject({ status: 429, body: { errors: [{ extensions: { code: 'TOO_MANY_CONNECTIONS' } }] } });
    await open(upgrade(h.wsUrl, { headers: { 'x-api-key': KEY } }));
    expect(await upgrade(h.wsUrl, { headers: { authorization: `Bearer ${KEY}` } })).toMatchObject({ status: 429 });
  });

  it('takes one request of the client\'s rate-limit bucket per upgrade, and refuses one over it with 429 RATE_LIMITED and Retry-After', async () => {
    h = await startGateway({ env: { RATE_LIMIT_PER_MINUTE: '2' } });
    await open(upgrade(h.wsUrl));
    await open(upgrade(h.wsUrl));
    const refused = await upgrade(h.wsUrl);
    expect(refused).toMatchObject({ status: 429, body: { errors: [{ extensions: { code: 'RATE_LIMITED' } }] } });
    expect(Number((refused as { headers: Record<string, string> }).headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // The same bucket as the client's HTTP requests.
    const overHttp = await fetch(`${h.url}/graphql?query=%7B__typename%7D`);
    expect(overHttp.status).toBe(429);
    await overHttp.arrayBuffer();
  });
});
