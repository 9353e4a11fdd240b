/**
 * Scenario (a): the cold deep query. The server has just started (and, for the gateway, passed
 * its readiness check, so it holds a token); the first request asks for 50 sites with city,
 * points, lanes and each lane's product. Measured: latency, upstream calls by path (the mock's
 * call log) and sequential round trips (the mock's answer spans).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { COLD_SITES } from '../config.js';
import { expectClean, postGraphQL } from '../load/graphql-client.js';
import { callTimings, countByPath, roundTrips, type CallTimings } from '../load/round-trips.js';
import type { BenchMock } from '../processes/mock.js';
import { deepQuery, type Flavour } from '../workloads/queries.js';

/** What the cold deep query cost. */
export interface ColdResult {
  latencyMs: number;
  /** Upstream API calls (token endpoint excluded). */
  upstreamCalls: number;
  /** Calls by path, token endpoint included. */
  upstreamCallsByPath: Record<string, number>;
  /** Sequential round trips, token requests included. */
  roundTrips: number;
  /** Sequential round trips of API calls only. */
  roundTripsApiOnly: number;
  /** Upstream call durations and concurrency (token endpoint included). */
  upstreamTimings: CallTimings;
  responseBytes: number;
}

/** Send the deep query once to a freshly started server at `graphqlUrl`. */
export async function coldDeep(graphqlUrl: string, flavour: Flavour, mock: BenchMock): Promise<ColdResult> {
  // A trivial first request, so that schema loading and first-request set-up are not counted.
  expectClean(await postGraphQL(graphqlUrl, { query: '{ __typename }' }), `${flavour} warm-up`);
  await mock.reset();
  const answer = expectClean(await postGraphQL(graphqlUrl, deepQuery(flavour, COLD_SITES)), `${flavour} cold deep query`);
  await sleep(200); // Let any call the server started after answering show in the log.
  const { log, spans } = await mock.log();
  const byPath = countByPath(log);
  return {
    latencyMs: Math.round(answer.ms),
    upstreamCalls: log.filter((entry) => entry.path !== '/oauth/token').length,
    upstreamCallsByPath: byPath,
    roundTrips: roundTrips(spans),
    roundTripsApiOnly: roundTrips(spans, (path) => path !== '/oauth/token'),
    upstreamTimings: callTimings(spans),
    responseBytes: answer.bytes.length,
  };
}
