/**
 * Every measurement of a run, in an order that keeps them independent: the gateway's scenarios
 * on one process (cold first, then warm, each beside a bare server in turn, mixed, and a catalog walk for memory after load), a
 * fresh one for memory with just the catalog, another (short cache TTLs) for token expiry, one
 * for the catalog index (`catalog-index.ts`, then the index in-process), the scale-out
 * replicas sharing one Redis (`scale-out.ts`), the serving scenarios (`serving.ts`:
 * two gateways, Tailcall, their own bare server), the REST clients and Mesh.
 * Only one system under test runs at a time, on its core. The live scenario (`live.ts`, 70 s)
 * runs alone (`BENCH_ONLY=live`), so that the whole run stays under 15 minutes.
 */
import { COLD_SITES, EXPIRY_CACHE_TTL_S, SMALL_GOODS_CODE, UPSTREAM_MAX_PAGE_SIZE, WARM_SITES } from '../config.js';
import type { LoadResult } from '../load/load.js';
import { loadGeneratorLabel } from '../load/wrk.js';
import { meshVersions, startMesh } from '../peers/mesh.js';
import { GC_ON_SIGNAL, memoryMb, withProcess } from '../processes/child.js';
import { clock } from '../processes/machine.js';
import { startGateway } from '../processes/gateway.js';
import type { BenchMock } from '../processes/mock.js';
import { coldDeep, type ColdResult } from '../scenarios/cold.js';
import { mixedLoad, tokenExpiryUnderLoad, type ExpiryResult, type MixedResult } from '../scenarios/mixed.js';
import { restClients, tokenFor, type RestClientResult } from '../scenarios/rest-client.js';
import { rssFullCatalog, type RssResult } from '../scenarios/rss.js';
import type { ScaleOutResult } from '../scenarios/scale-out.js';
import type { InterleavedResult } from '../scenarios/interleaved.js';
import { warmLoad, type WarmResult } from '../scenarios/warm.js';
import { deepQuery, smallQuery } from '../workloads/queries.js';
import { measureCatalogIndex, type CatalogIndexResult } from './catalog-index.js';
import type { LiveResult } from './live.js';
import { measureScaleOut } from './scale-out.js';
import { measureServing, type ServingResult } from './serving.js';
import { measureStart, type StartResult } from './start.js';
import { measureWarm } from './warm.js';

/** Everything measured, before ratios and targets are derived. */
export interface Measurements {
  gateway: {
    cold: ColdResult; warmDeep: WarmResult; warmSmall: WarmResult; mixed: MixedResult; expiry: ExpiryResult;
    /** A fresh gateway after walking the catalog (the headline figure). */
    rss: RssResult;
    /** The gateway that ran cold, warm and mixed, after walking the catalog too. */
    rssAfterLoad: RssResult;
  };
  /** The catalog index: its build, memory and warm queries on a fresh gateway, and in-process. */
  catalogIndex: CatalogIndexResult;
  /** 1, 2 and 4 replicas sharing one Redis (`SCALE_OUT_REPLICAS`). */
  scaleOut: ScaleOutResult[];
  /** Serving: distinct keys, the deep page with the response cache off, the mix; gateway, Tailcall, bare server. */
  serving: ServingResult;
  /** The bare server's slices beside the gateway's warm runs, taken together (`warm.ts`). */
  bare: { deep: LoadResult; small: LoadResult };
  /** Those slices in turn with the gateway's, which the warm ratios to the bare server are judged on; absent in results from before them. */
  warmInTurn?: { deep: InterleavedResult; small: InterleavedResult };
  /** What generated the warm runs' load (`../load/wrk.ts`); absent in results from before wrk ran them: autocannon. */
  warmLoadGenerator?: string;
  mesh: { cold: ColdResult; warmDeep: WarmResult; warmSmall: WarmResult; mixed: MixedResult; rssMbAfterRuns: number; versions: Record<string, string> };
  restClients: RestClientResult[];
  /** Live stock: 1,000 SSE subscribers over 50 sites while their stock changes; absent: not run (`BENCH_ONLY=live` runs it). */
  live?: LiveResult;
  coldDeepMinimum: { sitePages: number; distinctProducts: number; productListPages: number; total: number };
  /** Start: `npm start` to the first answer, with everything to build and with nothing. */
  start: StartResult;
}

/** Run every scenario against every server. */
export async function measureAll(mock: BenchMock): Promise<Measurements> {
  const gateway = await gatewayScenarios(mock);
  step('RSS of a fresh gateway with the whole catalog cached');
  const rss = await withProcess(startGateway(mock, {}, { nodeArgs: GC_ON_SIGNAL }), (gw) => rssFullCatalog(`${gw.url}/graphql`, gw.pid, mock));
  step(`token expiry under load (fresh gateway, ${EXPIRY_CACHE_TTL_S} s cache TTLs)`);
  const ttl = String(EXPIRY_CACHE_TTL_S);
  const expiryGateway = startGateway(mock, { CACHE_TTL_SITES_S: ttl, CACHE_TTL_PRODUCTS_S: ttl, CACHE_TTL_CITIES_S: ttl });
  const expiry = await withProcess(expiryGateway, (gw) => tokenExpiryUnderLoad(`${gw.url}/graphql`, mock, mock));
  const catalogIndex = await measureCatalogIndex(mock);
  const scaleOut = await measureScaleOut(mock);
  const serving = await measureServing(mock);
  step('REST clients without the gateway');
  const rest = await restClients(mock);
  const mesh = await meshScenarios(mock);
  step('npm start to the first answer, first and second start');
  const start = await measureStart();
  const { bare, inTurn: warmInTurn, ...gatewayRuns } = gateway;
  return {
    gateway: { ...gatewayRuns, rss, expiry }, catalogIndex, scaleOut, serving, bare, warmInTurn, warmLoadGenerator: loadGeneratorLabel(),
    mesh, restClients: rest, coldDeepMinimum: await coldMinimum(mock), start,
  };
}

type GatewayRuns = Omit<Measurements['gateway'], 'expiry' | 'rss'> & Pick<Measurements, 'bare'> & { inTurn: NonNullable<Measurements['warmInTurn']> };

// Private: cold, warm deep and small (each beside the bare server in turn), mixed, then the catalog walk and RSS, on one gateway.
async function gatewayScenarios(mock: BenchMock): Promise<GatewayRuns> {
  return withProcess(startGateway(mock, {}, { nodeArgs: GC_ON_SIGNAL }), async (gw) => {
    const url = `${gw.url}/graphql`;
    step('gateway: cold deep query');
    const cold = await coldDeep(url, 'gateway', mock);
    const warm = await measureWarm(url, mock);
    step('gateway: mixed workload');
    const mixed = await mixedLoad(url, 'gateway', mock, mock);
    step('gateway: whole catalog through the gateway, then RSS after all that load');
    const rssAfterLoad = await rssFullCatalog(url, gw.pid, mock);
    return { cold, ...warm, mixed, rssAfterLoad };
  });
}

// Private: the same scenarios on Mesh, handed a token fetched from the mock.
async function meshScenarios(mock: BenchMock): Promise<Measurements['mesh']> {
  step('GraphQL Mesh: start');
  return withProcess(startMesh(mock.url, await tokenFor(mock)), async (mesh) => {
    const url = `${mesh.url}/graphql`;
    step('GraphQL Mesh: cold deep query');
    const cold = await coldDeep(url, 'mesh', mock);
    step('GraphQL Mesh: warm deep and small queries (response cache on)');
    const warmDeep = await warmLoad(url, deepQuery('mesh', WARM_SITES), mock, 'Mesh warm deep query');
    const warmSmall = await warmLoad(url, smallQuery('mesh', SMALL_GOODS_CODE), mock, 'Mesh small query');
    step('GraphQL Mesh: mixed workload');
    const mixed = await mixedLoad(url, 'mesh', mock, mock);
    return { cold, warmDeep, warmSmall, mixed, rssMbAfterRuns: memoryMb(mesh.pid).rss, versions: meshVersions() };
  });
}

// Private: site pages + the smaller of distinct products and product-list pages.
async function coldMinimum(mock: BenchMock): Promise<Measurements['coldDeepMinimum']> {
  const sitePages = Math.ceil(COLD_SITES / UPSTREAM_MAX_PAGE_SIZE);
  const distinctProducts = await mock.distinctGoods(COLD_SITES);
  const productListPages = Math.ceil(mock.goodsCodes.length / UPSTREAM_MAX_PAGE_SIZE);
  return { sitePages, distinctProducts, productListPages, total: sitePages + Math.min(distinctProducts, productListPages) };
}


// Private: progress on stderr (stdout stays free for whoever pipes the bench).
function step(what: string): void {
  console.error(`bench: ${clock()} ${what}`);
}
