/**
 * The live scenario's subscribers: `perSite` SSE subscriptions to `siteStock` of each watched
 * site, all from this process over one undici `Pool` with a connection per stream. Each keeps
 * the events it received (arrival time, every lane's stock) for `live-delivery.ts` to judge.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';
import { subscribeSse, type SseEnd, type SseMessage, type SseSubscription } from '../load/sse-client.js';
import { laneKey, type ReceivedEvent, type SubscriberLog } from './live-delivery.js';

/** The subscription every subscriber sends, with its site's code as `$code`. */
export const SITE_STOCK_SUBSCRIPTION = 'subscription S($code: String!) { siteStock(code: $code) { code points { code cargoLanes { stock } } } }';

/** Error messages kept as examples; the rest are only counted. */
const KEPT_ERRORS = 5;

/** A thousand subscribers, more or less, and what they received. */
export interface SubscriberFleet {
  /** Each subscriber's site and events so far, in the order opened. */
  logs: SubscriberLog[];
  /** Resolves once every subscriber has had its first event or has ended (at most `timeoutMs`). */
  untilAllFirst(timeoutMs: number): Promise<{ ms: number; withFirst: number }>;
  /** `next` messages with GraphQL errors or without the site, so far, and the first few of them. */
  errors(): { count: number; examples: string[] };
  /** How the streams that ended before `close()` ended. */
  endedEarly(): SseEnd[];
  /** Close every stream and the pool; idempotent. */
  close(): Promise<void>;
}

// Private: the shape of a `siteStock` event's data.
interface SiteStockData {
  siteStock?: { code: string; points: Array<{ code: string; cargoLanes: Array<{ stock: number }> }> } | null;
}

/** Open `perSite` subscriptions to each of `siteCodes` at the gateway `baseUrl` (no path). */
export function openSubscribers(baseUrl: string, siteCodes: readonly string[], perSite: number): SubscriberFleet {
  const total = siteCodes.length * perSite;
  const pool = new Pool(baseUrl, { connections: total, pipelining: 1, bodyTimeout: 0, headersTimeout: 60_000 });
  const started = performance.now();
  const errors = { count: 0, examples: [] as string[] };
  const early: SseEnd[] = [];
  let closing: Promise<void> | undefined;
  const logs: Array<SubscriberLog & { events: ReceivedEvent[] }> = [];
  const streams: SseSubscription[] = [];
  for (let i = 0; i < total; i += 1) {
    const siteCode = siteCodes[i % siteCodes.length]!;
    const log = { siteCode, events: [] as ReceivedEvent[] };
    logs.push(log);
    const stream = subscribeSse(pool, '/graphql', { query: SITE_STOCK_SUBSCRIPTION, variables: { code: siteCode } }, (message) => {
      const event = eventOf(message);
      if (typeof event === 'string') noteError(errors, event);
      else log.events.push(event);
    });
    void stream.ended.then((end) => { if (closing === undefined) early.push(end); });
    streams.push(stream);
  }
  const ended = new Set<number>();
  streams.forEach((stream, i) => void stream.ended.then(() => ended.add(i)));
  return {
    logs,
    async untilAllFirst(timeoutMs) {
      const deadline = started + timeoutMs;
      const ready = () => logs.filter((log, i) => log.events.length > 0 || ended.has(i)).length;
      while (ready() < total && performance.now() < deadline) await sleep(50);
      return { ms: Math.round(performance.now() - started), withFirst: logs.filter((log) => log.events.length > 0).length };
    },
    errors: () => ({ count: errors.count, examples: [...errors.examples] }),
    endedEarly: () => [...early],
    close() {
      closing ??= (async () => {
        for (const stream of streams) stream.close();
        await Promise.all(streams.map((stream) => stream.ended));
        await pool.destroy();
      })();
      return closing;
    },
  };
}

// Private: the lanes' stock of a `siteStock` message, or what is wrong with it.
function eventOf(message: SseMessage): ReceivedEvent | string {
  const first = message.result.errors?.[0];
  if (first) return `${first.extensions?.code ?? 'no code'}: ${first.message}`;
  const site = (message.result.data as SiteStockData | undefined)?.siteStock;
  if (!site) return `no siteStock in ${JSON.stringify(message.result).slice(0, 200)}`;
  const stock = new Map<string, number>();
  for (const point of site.points) point.cargoLanes.forEach((lane, i) => stock.set(laneKey(point.code, i), lane.stock));
  return { at: message.at, stock };
}

// Private: count an error, keeping the first few distinct ones.
function noteError(errors: { count: number; examples: string[] }, text: string): void {
  errors.count += 1;
  if (errors.examples.length < KEPT_ERRORS && !errors.examples.includes(text)) errors.examples.push(text);
}
