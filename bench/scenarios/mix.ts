/**
 * The mix: one deep page to every `MIX_SMALL_PER_DEEP` small queries (random goods
 * codes), over the same `CONNECTIONS` connections, and the small queries' latency in it beside
 * their latency alone (the same run without the deep pages).
 *
 * autocannon keeps one histogram for all requests, so each answer's time is taken from its own
 * `response` event and filed under the kind of request it answered. One autocannon instance
 * rather than two side by side (small queries on some connections, deep pages on others at a
 * twentieth of the rate): the ratio is then exact whatever either kind's speed, a deep page
 * lands on any connection as it would from real clients, and there is no rate to guess before
 * the small queries' speed is known. The kind is set per request in `setupRequest`'s context;
 * with one request in flight per connection (no pipelining), that context still holds the
 * answered request's kind when its `response` event fires (autocannon 8 moves to the next
 * request only after the event).
 */
import autocannon, { type RequestTemplate } from 'autocannon';
import { CONNECTIONS, SECONDS, SERVING_WARMUP_SECONDS } from '../config.js';
import { summariseLatency, type LatencySummary } from '../load/latency.js';
import { round } from '../load/load.js';
import { apiCalls, type BenchMock } from '../processes/mock.js';

type Kind = 'small' | 'deep';

/** One kind of request in a mix run. Latencies in ms. */
export interface KindFigures extends LatencySummary {
  requestsPerSecond: number;
  /** Not 2xx, or answers with GraphQL `errors`. */
  errors: number;
}

/** A mix run, or the small queries alone. */
export interface MixRun {
  /** Small queries per deep page; null for the small queries alone. */
  smallPerDeep: number | null;
  seconds: number;
  /** Answers of both kinds per second. */
  requestsPerSecond: number;
  small: KindFigures;
  deep: KindFigures | null;
  /** Socket errors and timeouts, plus answers counted in either kind's `errors`. */
  clientErrors: number;
  /** The load generator's CPU over the run, in % of one core. */
  loadGeneratorCpuPercent: number;
  /** API calls during the measured run (a refresh of data past its TTL, say). */
  upstreamCalls: number;
}

/** What to send: small bodies drawn per request, the deep page's fixed body (or none). */
export interface MixOptions {
  url: string;
  nextSmall: () => string;
  deep: { body: string; smallPerDeep: number } | null;
}

/** An unmeasured warm-up, then the measured run, counting the upstream calls it made. */
export async function mixLoad(options: MixOptions, mock: BenchMock): Promise<MixRun> {
  await runMix(options, SERVING_WARMUP_SECONDS); // the gateway's data is warm from the serving runs before it
  await mock.untilQuiet();
  await mock.reset();
  const run = await runMix(options, SECONDS);
  return { ...run, upstreamCalls: apiCalls(await mock.calls()) };
}

// Private: one autocannon run of the mix, each answer's time filed by its kind.
async function runMix(options: MixOptions, seconds: number): Promise<Omit<MixRun, 'upstreamCalls'>> {
  const samples: Record<Kind, number[]> = { small: [], deep: [] };
  const errors: Record<Kind, number> = { small: 0, deep: 0 };
  let sent = 0;
  let unknown = 0;
  const every = options.deep === null ? 0 : options.deep.smallPerDeep + 1;
  const template: RequestTemplate = {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: '',
    setupRequest: (request, context) => {
      const kind: Kind = every > 0 && sent++ % every === every - 1 ? 'deep' : 'small';
      context.kind = kind;
      return { ...request, body: kind === 'deep' ? options.deep!.body : options.nextSmall() };
    },
    onResponse: (status, body, context) => {
      if (status >= 300 || body.includes('"errors"')) errors[context.kind as Kind] += 1;
    },
  };
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const instance = autocannon({ url: options.url, connections: CONNECTIONS, duration: seconds, timeout: 20, requests: [template] });
  instance.on('response', (client, _status, _bytes, ms) => {
    const kind = (client as { requestIterator?: { context?: { kind?: Kind } } }).requestIterator?.context?.kind;
    if (kind === undefined) unknown += 1;
    else samples[kind].push(ms);
  });
  const result = await instance;
  const wallMs = performance.now() - started;
  // Without the kind, the figures would be silently mixed up: autocannon's internals moved.
  if (unknown > 0) throw new Error(`mix: ${unknown} answers without a request kind (autocannon's client no longer keeps the request context)`);
  const cpu = process.cpuUsage(cpuBefore);
  const figures = (kind: Kind): KindFigures => ({
    ...summariseLatency(samples[kind]), requestsPerSecond: round(samples[kind].length / result.duration, 1), errors: errors[kind],
  });
  return {
    smallPerDeep: options.deep?.smallPerDeep ?? null,
    seconds: result.duration,
    requestsPerSecond: round((samples.small.length + samples.deep.length) / result.duration, 1),
    small: figures('small'),
    deep: options.deep === null ? null : figures('deep'),
    clientErrors: result.errors + result.timeouts + errors.small + errors.deep,
    loadGeneratorCpuPercent: round(((cpu.user + cpu.system) / 1000 / wallMs) * 100, 1),
  };
}
