/**
 * The gateway's Prometheus metrics, in a registry of its own so two gateways in one process
 * (tests) never share counts; the process metrics (`process_*`, `nodejs_*`) are collected once
 * per process and exposed by every gateway's `/metrics`. Every label is a bounded set (the
 * `operation` names by operation-labels.ts); each family's help says what it counts.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { LookupResult } from '../cache/cache.js';
import type { AttemptEnd } from '../upstream/http/observer.js';
import { liveFamilies, type LiveRound, type LiveState } from './live-metrics.js';
import { createOperationLabels, type OperationLabelOptions } from './operation-labels.js';

export interface GatewayMetrics {
  /** The text exposition of every family, the process's included. */
  render(): Promise<{ contentType: string; body: string }>;
  /** A GraphQL request ended; `ran`: its operation executed (so validated): the name competes for a label. */
  graphqlRequest(request: { operation: string; ran: boolean }, outcome: 'ok' | 'error', durationMs: number): void;
  rejectedRequest(reason: string): void;
  upstreamAttemptStarted(path: string): void;
  upstreamAttemptEnded(attempt: AttemptEnd): void;
  cacheLookup(kind: string, result: LookupResult): void;
  tokenRequest(outcome: string): void;
  /** A Redis operation failed (`cache_read`, `cache_write`, `cache_lock`, `cache_decode`, `cache_purge`, `token_*`, `answer_*`, `purge_publish`). */
  redisError(operation: string): void;
  /** A build of a part of the catalog index ended. */
  indexBuild(part: string, outcome: 'ok' | 'error', durationMs: number): void;
  /** A purge was carried out here: taken (`request`) or heard from another replica (`fleet`). */
  purge(origin: 'request' | 'fleet', dropped: { response: number; data: number }): void;
  /** A poll round for live subscribers ended. */
  liveRound(round: LiveRound): void;
  /** A live event was sent. */
  liveEvent(field: string): void;
  /** An answer was compressed in `coding`. */
  compression(coding: string): void;
}

/** State read when metrics are scraped. */
export interface MetricSources {
  breakerStates(): Record<string, 'closed' | 'open' | 'half-open'>;
  cacheEntries(): number;
  /** Whether Redis is in use; absent without REDIS_URL (then no Redis families). */
  redisState?(): 'up' | 'down';
  /** Age in ms of each part of the catalog index held now; absent parts are not built yet. */
  indexAges?(): Record<string, number | undefined>;
  /** Live subscriptions and watched keys now. */
  liveState?(): LiveState;
}

const LATENCY_BUCKETS_S = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15];
const BREAKER_STATE_VALUE = { closed: 0, 'half-open': 1, open: 2 } as const;
const LOOKUP_RESULTS: readonly LookupResult[] = ['hit', 'miss', 'stale'];

/** Options of the `operation` label (operation-labels.ts); the tests move its clock. */
export type MetricOptions = Omit<OperationLabelOptions, 'onDropped'>;

export function createMetrics(sources: MetricSources, options: MetricOptions): GatewayMetrics {
  const processWide = processRegistry();
  const registry = new Registry();
  const registers = [registry];
  // Requests add to a plain tally, which reaches the counter when scraped: no label hash per request.
  const requestTally = new Map<string, { ok: number; error: number }>();
  const requests: Counter<'operation' | 'outcome'> = new Counter({
    name: 'gateway_graphql_requests_total', help: 'GraphQL requests by operation name and outcome (ok, error)',
    labelNames: ['operation', 'outcome'] as const, registers,
    collect() {
      for (const [operation, counts] of requestTally) {
        if (counts.ok > 0) requests.inc({ operation, outcome: 'ok' }, counts.ok);
        if (counts.error > 0) requests.inc({ operation, outcome: 'error' }, counts.error);
      }
      requestTally.clear();
    },
  });
  const requestSeconds = new Histogram({
    name: 'gateway_graphql_request_duration_seconds', help: 'GraphQL request duration, from arrival to response, in seconds',
    labelNames: ['operation', 'outcome'] as const, buckets: LATENCY_BUCKETS_S, registers,
  });
  const rejected = new Counter({
    name: 'gateway_rejected_requests_total', help: 'Requests refused before GraphQL ran (unauthenticated, rate_limited)',
    labelNames: ['reason'] as const, registers,
  });
  const calls = new Counter({
    name: 'gateway_upstream_calls_total', help: 'Upstream API call attempts (retries included) by path and outcome',
    labelNames: ['operation', 'outcome'] as const, registers,
  });
  const callSeconds = new Histogram({
    name: 'gateway_upstream_call_duration_seconds', help: 'Duration of upstream API call attempts sent, in seconds',
    labelNames: ['operation', 'outcome'] as const, buckets: LATENCY_BUCKETS_S, registers,
  });
  const inFlight = new Gauge({
    name: 'gateway_upstream_calls_in_flight', help: 'Upstream API call attempts on the wire now',
    labelNames: ['operation'] as const, registers,
  });
  const breakers = new Gauge({
    name: 'gateway_upstream_breaker_state', help: 'Circuit state per upstream path: 0 closed, 1 half-open, 2 open',
    labelNames: ['operation'] as const, registers,
    collect() {
      for (const [path, state] of Object.entries(sources.breakerStates())) breakers.set({ operation: path }, BREAKER_STATE_VALUE[state]);
    },
  });
  // Lookups, many per request, add to a plain tally too.
  const lookupTally = new Map<string, Record<LookupResult, number>>();
  const lookups: Counter<'kind' | 'result'> = new Counter({
    name: 'gateway_cache_lookups_total', help: 'Shared cache lookups by kind of data and result (hit, miss, stale)',
    labelNames: ['kind', 'result'] as const, registers,
    collect() {
      for (const [kind, counts] of lookupTally) {
        for (const result of LOOKUP_RESULTS) {
          if (counts[result] > 0) lookups.inc({ kind, result }, counts[result]);
          counts[result] = 0;
        }
      }
    },
  });
  const entries = new Gauge({
    name: 'gateway_cache_entries', help: 'Entries held in the shared cache', registers,
    collect() {
      entries.set(sources.cacheEntries());
    },
  });
  const tokenRequests = new Counter({
    name: 'gateway_token_requests_total', help: 'Upstream token requests by outcome (ok, or how they failed)',
    labelNames: ['outcome'] as const, registers,
  });
  const indexBuilds = new Counter({
    name: 'gateway_index_builds_total', help: 'Catalog index builds by part (sites, products) and outcome (ok, error)',
    labelNames: ['part', 'outcome'] as const, registers,
  });
  const indexBuildSeconds = new Histogram({
    name: 'gateway_index_build_duration_seconds', help: 'Duration of catalog index builds (walks included), in seconds',
    labelNames: ['part'] as const, buckets: LATENCY_BUCKETS_S, registers,
  });
  const indexAge = new Gauge({
    name: 'gateway_index_age_seconds', help: 'Age of the data of each part of the catalog index held now, in seconds',
    labelNames: ['part'] as const, registers,
    collect() {
      for (const [part, ageMs] of Object.entries(sources.indexAges?.() ?? {})) {
        if (ageMs !== undefined) indexAge.set({ part }, ageMs / 1000);
      }
    },
  });
  const compressions = new Counter({
    name: 'gateway_compressions_total', help: 'Answers compressed, by content coding (a stored answer once per coding)',
    labelNames: ['coding'] as const, registers,
  });
  const purges = new Counter({
    name: 'gateway_purges_total', help: 'Purges by tag carried out here: taken by this replica (request) or heard from another (fleet)',
    labelNames: ['origin'] as const, registers,
  });
  const purged = new Counter({
    name: 'gateway_purged_entries_total', help: 'Copies purges dropped (this process\'s, and Redis\'s for purges taken here): whole answers (response) and upstream data (data)',
    labelNames: ['cache'] as const, registers,
  });
  const live = liveFamilies(registers, () => sources.liveState?.() ?? { subscriptions: {}, watchedKeys: 0 });
  const redisErrors = sources.redisState === undefined ? undefined : redisFamilies(registers, sources.redisState);
  const operationLabels = createOperationLabels({
    ...options,
    // A name that lost its label stops being a series: its counts so far were scraped already.
    onDropped(operation) {
      requestTally.delete(operation);
      for (const outcome of ['ok', 'error']) {
        requests.remove({ operation, outcome });
        requestSeconds.remove({ operation, outcome });
      }
    },
  });

  return {
    async render() {
      const merged = Registry.merge([processWide, registry]);
      return { contentType: registry.contentType, body: await merged.metrics() };
    },
    graphqlRequest({ operation, ran }, outcome, durationMs) {
      const label = operationLabels.label(operation, ran);
      let counts = requestTally.get(label);
      if (counts === undefined) requestTally.set(label, (counts = { ok: 0, error: 0 }));
      counts[outcome] += 1;
      requestSeconds.observe({ operation: label, outcome }, durationMs / 1000);
    },
    rejectedRequest: (reason) => rejected.inc({ reason }),
    upstreamAttemptStarted: (path) => inFlight.inc({ operation: path }),
    upstreamAttemptEnded({ path, outcome, durationMs, sent }) {
      calls.inc({ operation: path, outcome });
      if (!sent) return;
      inFlight.dec({ operation: path });
      callSeconds.observe({ operation: path, outcome }, durationMs / 1000);
    },
    cacheLookup(kind, result) {
      let counts = lookupTally.get(kind);
      if (counts === undefined) lookupTally.set(kind, (counts = { hit: 0, miss: 0, stale: 0 }));
      counts[result] += 1;
    },
    tokenRequest: (outcome) => tokenRequests.inc({ outcome }),
    redisError: (operation) => redisErrors?.inc({ operation }),
    purge(origin, dropped) {
      purges.inc({ origin });
      purged.inc({ cache: 'response' }, dropped.response);
      purged.inc({ cache: 'data' }, dropped.data);
    },
    liveRound: (round) => live.round(round),
    liveEvent: (field) => live.event(field),
    compression: (coding) => compressions.inc({ coding }),
    indexBuild(part, outcome, durationMs) {
      indexBuilds.inc({ part, outcome });
      indexBuildSeconds.observe({ part }, durationMs / 1000);
    },
  };
}

// Private: the Redis families, registered only when Redis is configured.
function redisFamilies(registers: Registry[], state: () => 'up' | 'down') {
  const up = new Gauge({
    name: 'gateway_redis_up', help: 'Whether Redis is in use (1), or down and the gateway caching in-process (0)', registers,
    collect() {
      up.set(state() === 'up' ? 1 : 0);
    },
  });
  return new Counter({
    name: 'gateway_redis_errors_total', help: 'Failed Redis operations by name; each fell back to in-process caching or the own token',
    labelNames: ['operation'] as const, registers,
  });
}

let processMetrics: Registry | undefined;

// Private: the process metrics, registered once per process: each registration starts its own
// event-loop-delay monitor and GC observer, which live as long as the process.
function processRegistry(): Registry {
  if (processMetrics === undefined) {
    processMetrics = new Registry();
    collectDefaultMetrics({ register: processMetrics });
  }
  return processMetrics;
}
