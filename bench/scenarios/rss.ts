/**
 * Scenario (e): the gateway's resident memory with the whole catalog cached. Every site page
 * (100 sites with points, lanes and products) and every product page goes through the gateway
 * first, four requests at a time, then VmRSS is read after a second's rest: the figure the budget
 * judges, garbage of the walk included, as a deployment would see it. Then, after a forced full GC
 * and another second, VmRSS again: what the data itself keeps, reported beside, never instead.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { UPSTREAM_MAX_PAGE_SIZE } from '../config.js';
import { expectClean, postGraphQL } from '../load/graphql-client.js';
import { forceGc, memoryMb } from '../processes/child.js';
import { apiCalls, type BenchMock } from '../processes/mock.js';
import { deepQuery, productPage, type GraphQLRequest } from '../workloads/queries.js';

/** Memory with the catalog cached, and what the walk cost. */
export interface RssResult {
  /** VmRSS a second after the walk, no GC forced: the figure targets judge. */
  rssMb: number;
  peakRssMb: number;
  /** VmRSS a second after a forced full GC, after `rssMb` was read. */
  afterGcRssMb: number;
  walkRequests: number;
  walkUpstreamCalls: number;
  walkMs: number;
}

/** Walk the catalog through the gateway at `graphqlUrl`, then read process `pid`'s memory (started with `GC_ON_SIGNAL`). */
export async function rssFullCatalog(graphqlUrl: string, pid: number, mock: BenchMock): Promise<RssResult> {
  const size = UPSTREAM_MAX_PAGE_SIZE;
  const requests: GraphQLRequest[] = [
    ...Array.from({ length: Math.ceil(mock.siteCodes.length / size) }, (_, i) => deepQuery('gateway', size, i + 1)),
    ...Array.from({ length: Math.ceil(mock.goodsCodes.length / size) }, (_, i) => productPage(i + 1, size)),
  ];
  await mock.reset();
  const started = performance.now();
  for (let i = 0; i < requests.length; i += 4) {
    await Promise.all(requests.slice(i, i + 4).map(async (request, j) => expectClean(await postGraphQL(graphqlUrl, request), `catalog walk #${i + j + 1}`)));
  }
  const walkMs = Math.round(performance.now() - started);
  const walkUpstreamCalls = apiCalls(await mock.calls());
  await sleep(1000);
  const { rss, peak } = memoryMb(pid);
  await forceGc(pid, 1000);
  return { rssMb: rss, peakRssMb: peak, afterGcRssMb: memoryMb(pid).rss, walkRequests: requests.length, walkUpstreamCalls, walkMs };
}
