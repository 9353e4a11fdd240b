/**
 * A load run: autocannon (programmatic, in this process, which runs on the load generator's
 * core) posting GraphQL requests over `CONNECTIONS` keep-alive connections, and what the load
 * generator itself spent, so that a saturated generator is visible in the results.
 */
import autocannon, { type RequestTemplate, type Result } from 'autocannon';
import { CONNECTIONS } from '../config.js';

/** What one run measured. Latencies in ms. */
export interface LoadResult {
  requestsPerSecond: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  latencyMeanMs: number;
  /** Requests answered within the run. */
  requests: number;
  /** Requests sent, answered or not (those open when the run stopped are abandoned). */
  requestsSent: number;
  /** Socket errors and timeouts, plus non-2xx answers, plus 2xx answers whose body has `errors`. */
  clientErrors: number;
  non2xx: number;
  /** Answers carrying GraphQL `errors` (only counted when `checkBodies` is on). */
  graphqlErrors: number;
  bytesPerResponse: number;
  seconds: number;
  /** The load generator's CPU over the run, in % of one core (100 = saturated). */
  loadGeneratorCpuPercent: number;
  /** Which load generator ran (`wrk.ts`); absent in results from before wrk was used: autocannon. */
  generator?: 'wrk' | 'autocannon';
  /**
   * What each failed request was, counted by `<failure> <operation>`: the failure (`timeout`, a
   * socket error's code, `HTTP <status>`, or `errors <codes>` of a 2xx answer) and the query's
   * first field, e.g. `timeout sites` (only with `checkBodies`; absent in older results).
   */
  failures?: Record<string, number>;
}

/** A load run: one fixed body, or a fresh body per request from `nextBody`. */
export interface LoadOptions {
  /**
   * One server, or several (replicas): autocannon then gives connection i to `url[i % n]` for
   * the whole run, so with `CONNECTIONS` a multiple of n each server gets the same share.
   */
  url: string | string[];
  /** Length of the run; with `amount`, the most it may last (it is stopped there). */
  seconds: number;
  /** Send this many requests (at least `CONNECTIONS`), however long they take, up to `seconds`. */
  amount?: number;
  body?: string;
  nextBody?: () => string;
  /** Read every answer and count those with GraphQL `errors` (costs the generator some CPU). */
  checkBodies?: boolean;
  /** Called once, `at` seconds into the run (e.g. to expire tokens mid-run). */
  midRun?: { at: number; action: () => Promise<void> };
}

/** Run autocannon against `options.url` (one or several servers, one histogram) and summarise. */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const checked: Checked = { graphqlErrors: 0, failures: new Map() };
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const instance = autocannon({
    url: options.url, connections: CONNECTIONS, duration: options.seconds, timeout: 20, requests: [requestTemplate(options, checked)],
    ...(options.amount === undefined ? {} : { amount: options.amount }),
    ...(options.checkBodies ? { setupClient: noteFailuresOf(checked) } : {}),
  });
  // With `amount`, autocannon ignores `duration`: this keeps `seconds` as the bound.
  const cap = options.amount === undefined ? undefined : setTimeout(() => instance.stop(), options.seconds * 1000);
  // Such a run reports at its next whole-second tick; its last answer says when it really ended.
  let lastAnswer = started;
  if (options.amount !== undefined) instance.on('response', () => { lastAnswer = performance.now(); });
  let midRunDone: Promise<void> | undefined;
  const timer = options.midRun && setTimeout(() => { midRunDone = options.midRun!.action(); }, options.midRun.at * 1000);
  const result = await instance;
  clearTimeout(cap);
  clearTimeout(timer);
  await midRunDone;
  const cpu = process.cpuUsage(cpuBefore);
  const byAmount = options.amount !== undefined && lastAnswer > started;
  const wallMs = (byAmount ? lastAnswer : performance.now()) - started;
  // autocannon averages whole-second samples; a run bound by `amount` ends within its last second.
  const timing = !byAmount
    ? { perSecond: result.requests.average, seconds: result.duration }
    : { perSecond: result.requests.total / (wallMs / 1000), seconds: round(wallMs / 1000, 2) };
  const summary = summarise(result, timing, checked.graphqlErrors, ((cpu.user + cpu.system) / 1000 / wallMs) * 100);
  return options.checkBodies ? { ...summary, failures: Object.fromEntries(checked.failures) } : summary;
}

/** What checking answers keeps: the count of answers with errors, and every failure by kind. */
interface Checked {
  graphqlErrors: number;
  failures: Map<string, number>;
}

/** The body a connection sent last, kept in its autocannon context, to name a request that fails. */
type Context = { body?: string };

// Private: counts `failure` of the request `body` asked for.
function note(checked: Checked, failure: string, body: string | undefined): void {
  const key = `${failure} ${operationOf(body)}`;
  checked.failures.set(key, (checked.failures.get(key) ?? 0) + 1);
}

// Private: a connection's timeouts and socket errors, named by the request it had sent.
function noteFailuresOf(checked: Checked): (client: unknown) => void {
  return (client) => {
    const events = client as { on(event: string, listener: (error?: Error & { code?: string }) => void): void; requestIterator?: { context?: Context } };
    const body = () => events.requestIterator?.context?.body;
    events.on('timeout', () => note(checked, 'timeout', body()));
    events.on('connError', (error) => note(checked, error?.code ?? error?.message ?? 'socket error', body()));
  };
}

// Private: the first field of a GraphQL request body, e.g. `sites` (or `?`).
function operationOf(body: string | undefined): string {
  const query = body === undefined ? undefined : (JSON.parse(body) as { query?: string }).query;
  return /\{\s*(?:\w+\s*:\s*)?(\w+)/.exec(query ?? '')?.[1] ?? '?';
}

// Private: the request autocannon repeats: a fixed body or a fresh one each time, answers checked or not.
function requestTemplate(options: LoadOptions, checked: Checked): RequestTemplate {
  const template: RequestTemplate = { method: 'POST', headers: { 'content-type': 'application/json' }, body: options.body ?? '' };
  if (options.nextBody || options.checkBodies) {
    template.setupRequest = (request, context) => {
      const body = options.nextBody?.() ?? options.body ?? '';
      (context as Context).body = body;
      return { ...request, body };
    };
  }
  if (options.checkBodies) {
    template.onResponse = (status, body, context) => {
      const sent = (context as Context).body;
      if (status >= 300) return note(checked, `HTTP ${status}`, sent);
      if (!body.includes('"errors"')) return;
      checked.graphqlErrors += 1;
      note(checked, `errors ${errorCodes(body)}`, sent);
    };
  }
  return template;
}

// Private: the `extensions.code`s of an answer's errors, e.g. `UPSTREAM_UNAVAILABLE,REQUEST_TIMEOUT`.
function errorCodes(body: string): string {
  const codes = new Set([...body.matchAll(/"code":"(\w+)"/g)].map((match) => match[1]));
  return [...codes].join(',') || 'uncoded';
}

// Private: autocannon's result in the bench's terms.
function summarise(result: Result, timing: { perSecond: number; seconds: number }, graphqlErrors: number, cpuPercent: number): LoadResult {
  const requests = result.requests.total;
  return {
    requestsPerSecond: round(timing.perSecond, 1),
    latencyP50Ms: result.latency.p50,
    latencyP99Ms: result.latency.p99,
    latencyMeanMs: round(result.latency.average, 2),
    requests,
    requestsSent: result.requests.sent,
    clientErrors: result.errors + result.timeouts + result.non2xx + graphqlErrors,
    non2xx: result.non2xx,
    graphqlErrors,
    bytesPerResponse: requests > 0 ? Math.round(result.throughput.total / requests) : 0,
    seconds: timing.seconds,
    loadGeneratorCpuPercent: round(cpuPercent, 1),
    generator: 'autocannon',
  };
}

/** `value` rounded to `digits` decimals. */
export function round(value: number, digits = 0): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
