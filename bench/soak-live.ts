/**
 * `npm run soak -- live`: SOAK_LIVE_CYCLES (default 10,000) live subscriptions opened against the
 * built gateway in its own process and left in every way a client can leave, over WebSocket and
 * SSE: completed, a reused id (subscribe, complete, subscribe in one write), a burst then an
 * abrupt disconnect, a stream dropped before or after its first event, named sites that do not
 * exist. Then the gateway must hold nothing: no live subscription, no watched key, no poll of the
 * upstream, and its RSS and used heap (after a full GC) within 10 % of where they were after the
 * warm-up (the first tenth of the cycles). Prints the figures, with the curve every 2,500
 * subscriptions (a leak grows with them, a high-water mark does not); exits 1 if any fails.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import WebSocket from 'ws';
import { createMockUpstream } from '../src/mock-upstream/index.js';
import { forceGc, GC_ON_SIGNAL, memoryMb, stopProcess } from './processes/child.js';
import { startGateway } from './processes/gateway.js';

const CYCLES = Number(process.env.SOAK_LIVE_CYCLES ?? 10_000);
const WARM_UP = Math.floor(CYCLES / 10);
const CONCURRENCY = 16;
const CHECKPOINT = 2500;
const IDLE_MS = 10_000;
const DETAIL = '/api/site/detail';
/** Subscribes sent at once by one client before it cuts its socket. */
const BURST = 20;

const mock = await createMockUpstream({ catalog: { sites: 200, products: 100 }, latencyMs: 2 });
const codes = mock.catalog.sites.slice(0, 50).map((site) => site.code);
const gateway = await startGateway(
  { url: mock.url, tokenUrl: mock.tokenUrl, clientId: mock.clientId, clientSecret: mock.clientSecret },
  // Every client here is 127.0.0.1: the per-client limits are raised so that the soak measures
  // ending, not refusing (refusals are the limits' tests' business).
  { LIVE_POLL_S: '1', LIVE_MAX_SUBSCRIPTIONS_PER_CLIENT: '100000', LIVE_MAX_WATCHED_KEYS_PER_CLIENT: '100000', WS_MAX_SOCKETS_PER_CLIENT: '100000' },
  { nodeArgs: GC_ON_SIGNAL },
);
const wsUrl = `${gateway.url.replace('http', 'ws')}/graphql`;
const siteStock = (code: string) => ({ query: 'subscription ($code: String!) { siteStock(code: $code) { code points { cargoLanes { stock } } } }', variables: { code } });
const randomCode = () => codes[Math.floor(Math.random() * codes.length)]!;

const kinds = [wsCompleted, wsReusedId, wsBurstThenCut, sseAfterFirstEvent, sseCutAtOnce, wsUnknownSites] as const;
const done = new Map<string, number>();
let started = 0;
let turn = 0;

let before = { rss: NaN, heap: NaN };
let held = { subscriptions: -1, watchedKeys: -1, polls: -1, quietS: 0 };
let after = { rss: NaN, heap: NaN };
try {
  await run(WARM_UP);
  before = await settledMemory(IDLE_MS);
  // The curve, every CHECKPOINT subscriptions: a leak grows with them, a high-water mark does not.
  while (started < CYCLES) {
    await run(Math.min(CHECKPOINT, CYCLES - started));
    if (started < CYCLES) await settledMemory();
  }
  held = await heldAfterwards();
  after = await settledMemory(IDLE_MS);
} finally {
  await stopProcess(gateway.child);
  await mock.close();
}

const growth = (after.rss - before.rss) / before.rss;
const heapGrowth = (after.heap - before.heap) / before.heap;
console.error(`live soak: ${started} subscriptions (${JSON.stringify(Object.fromEntries(done))})`);
console.error(`afterwards: ${held.subscriptions} live subscriptions, ${held.watchedKeys} watched keys, ${held.polls} site-detail polls in ${held.quietS} s`);
console.error(`gateway after a full GC, after the warm-up → at the end: RSS ${before.rss} → ${after.rss} MB (${(growth * 100).toFixed(1)} %), heap used ${before.heap} → ${after.heap} MB (${(heapGrowth * 100).toFixed(1)} %)`);
const failed = held.subscriptions !== 0 || held.watchedKeys !== 0 || held.polls !== 0 || growth > 0.1 || heapGrowth > 0.1;
if (failed) console.error('live soak: FAILED');
process.exit(failed ? 1 : 0);

// Private: `cycles` more subscriptions, CONCURRENCY clients at a time, each kind in turn.
async function run(cycles: number): Promise<void> {
  const goal = started + cycles;
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (started < goal) {
      const kind = kinds[turn++ % kinds.length]!;
      started += kind === wsBurstThenCut ? BURST : 1;
      await kind().catch(() => undefined);
      done.set(kind.name, (done.get(kind.name) ?? 0) + 1);
    }
  }));
}


function send(socket: WebSocket, message: object): void {
  socket.send(JSON.stringify(message));
}

// Private: a socket past connection_init; `onMessage` sees each message after the ack.
function connect(onMessage: (message: { id?: string; type: string }, socket: WebSocket) => void, onOpen: (socket: WebSocket) => void): Promise<void> {
  return new Promise((resolve) => {
    const socket = new WebSocket(wsUrl, 'graphql-transport-ws');
    socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init' })));
    socket.on('message', (data) => {
      const message = JSON.parse(String(data)) as { id?: string; type: string };
      if (message.type === 'connection_ack') onOpen(socket);
      else onMessage(message, socket);
    });
    socket.on('error', () => undefined);
    socket.on('close', () => resolve());
  });
}

async function wsCompleted(): Promise<void> {
  await connect((message, socket) => {
    if (message.type !== 'next') return;
    send(socket, { id: '1', type: 'complete' });
    socket.close(1000);
  }, (socket) => send(socket, { id: '1', type: 'subscribe', payload: siteStock(randomCode()) }));
}

async function wsReusedId(): Promise<void> {
  await connect((_message, socket) => socket.close(1000), (socket) => {
    const payload = siteStock(randomCode());
    send(socket, { id: 'a', type: 'subscribe', payload });
    send(socket, { id: 'a', type: 'complete' });
    send(socket, { id: 'a', type: 'subscribe', payload });
    setTimeout(() => socket.terminate(), 20);
  });
}

async function wsBurstThenCut(): Promise<void> {
  await connect(() => undefined, (socket) => {
    for (let id = 0; id < BURST; id += 1) send(socket, { id: String(id), type: 'subscribe', payload: siteStock(randomCode()) });
    socket.terminate();
  });
}

async function wsUnknownSites(): Promise<void> {
  const siteCodes = [randomCode(), `NOPE${Math.floor(Math.random() * 1e6)}`];
  await connect((message, socket) => {
    if (message.type === 'next' || message.type === 'error') socket.close(1000);
  }, (socket) => {
    send(socket, { id: 'x', type: 'subscribe', payload: { query: 'subscription ($s: [String!]) { stockAlerts(siteCodes: $s) { stock } }', variables: { s: siteCodes } } });
    setTimeout(() => socket.close(1000), 50);
  });
}

async function sseAfterFirstEvent(): Promise<void> {
  const abort = new AbortController();
  const response = await fetch(`${gateway.url}/graphql`, {
    method: 'POST', signal: abort.signal,
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify(siteStock(randomCode())),
  });
  const reader = response.body!.getReader();
  await reader.read();
  abort.abort();
}

async function sseCutAtOnce(): Promise<void> {
  const abort = new AbortController();
  const answer = fetch(`${gateway.url}/graphql`, {
    method: 'POST', signal: abort.signal,
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify(siteStock(randomCode())),
  });
  abort.abort();
  await answer;
}

// Private: what the gateway still holds once every client has gone: its live gauges (waited for,
// up to 30 s, as sockets close), then the detail polls over three poll intervals.
async function heldAfterwards(): Promise<{ subscriptions: number; watchedKeys: number; polls: number; quietS: number }> {
  const deadline = Date.now() + 30_000;
  let gauges = await liveGauges();
  while ((gauges.subscriptions > 0 || gauges.watchedKeys > 0) && Date.now() < deadline) {
    await sleep(250);
    gauges = await liveGauges();
  }
  const quietS = 3;
  const polls = mock.calls(DETAIL);
  await sleep(quietS * 1000);
  return { ...gauges, polls: mock.calls(DETAIL) - polls, quietS };
}

async function liveGauges(): Promise<{ subscriptions: number; watchedKeys: number }> {
  const text = await (await fetch(`${gateway.url}/metrics`)).text();
  const sum = (name: string) => [...text.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\d+)`, 'gm'))].reduce((total, m) => total + Number(m[1]), 0);
  return { subscriptions: sum('gateway_live_subscriptions'), watchedKeys: sum('gateway_live_watched_keys') };
}

// Private: RSS once the gateway has been idle `idleMs` and has collected its garbage, in MB (its
// heap beside it). V8 gives idle heap pages back some seconds after a busy spell: the start and
// the end are both measured after IDLE_MS, the curve's points sooner.
async function settledMemory(idleMs = 2000): Promise<{ rss: number; heap: number }> {
  await sleep(idleMs);
  await forceGc(gateway.pid, 1000);
  const text = await (await fetch(`${gateway.url}/metrics`)).text();
  const mb = (name: string) => Math.round(Number(new RegExp(`^${name} (\\S+)`, 'm').exec(text)?.[1] ?? NaN) / 1048576);
  const { rss } = memoryMb(gateway.pid);
  const heap = mb('nodejs_heap_size_used_bytes');
  console.error(`gateway after ${started} subscriptions: RSS ${rss} MB, heap used ${heap} of ${mb('nodejs_heap_size_total_bytes')} MB, external ${mb('nodejs_external_memory_bytes')} MB`);
  return { rss, heap };
}
