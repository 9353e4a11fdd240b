/**
 * The catalog index in-process, without HTTP or GraphQL: run by `catalog-index.ts` as a child
 * process (`node --expose-gc --import tsx bench/measure/catalog-index-probe.ts`, pinned to the
 * core of the system under test while no gateway runs), its figures as one JSON line on stdout.
 *
 * It walks both lists of the mock upstream (`PROBE_UPSTREAM_URL`, bearer `PROBE_TOKEN`) as the
 * gateway does (page size 100, normalised with the gateway's own `normalise.ts`), then measures,
 * with src/catalog/catalog.ts itself:
 * - heapUsed after a full GC: before the walk, with the records, with the sites catalog, with
 *   the products catalog too, so each layer's share is a difference of two readings;
 * - `buildSitesCatalog` / `buildProductsCatalog`: the first build (as a gateway's first, cold
 *   JIT) and `BUILD_REPEATS` more;
 * - `sitesNear` / `availability` on the same argument draws as the gateway scenario, in µs.
 */
import {
  availability, buildProductsCatalog, buildSitesCatalog, sitesNear,
} from '../../src/catalog/catalog.js';
import { normalisePage, normaliseProduct, normaliseSite, type DefectReporter } from '../../src/upstream/normalise.js';
import type { ProductRecord, SiteRecord } from '../../src/upstream/records.js';
import { INDEX_PROBE_QUERIES } from '../config.js';
import { summariseLatency, type LatencySummary } from '../load/latency.js';
import { randomAvailabilityArgs, randomNearArgs, type IndexKeys } from '../workloads/catalog-index.js';

/** What the probe measured. Heap figures in MB, build times in ms, query times in µs. */
export interface ProbeResult {
  records: { sites: number; points: number; lanes: number; products: number };
  heapUsedMb: { empty: number; records: number; sitesCatalog: number; productsCatalog: number };
  buildMs: {
    sites: { first: number; repeated: LatencySummary };
    products: { first: number; repeated: LatencySummary };
  };
  queryMicros: { sitesNear: LatencySummary; availability: LatencySummary };
  queries: number;
}

/** Builds timed after the first one. */
const BUILD_REPEATS = 10;
const PAGE_SIZE = 100;

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('catalog-index-probe: run it with node --expose-gc');
const upstream = requiredEnv('PROBE_UPSTREAM_URL');
const token = requiredEnv('PROBE_TOKEN');

const empty = heapUsedMb();
const sites = await walk('/api/site/list-with-points', normaliseSite);
const products = await walk('/api/products/list', (raw) => normaliseProduct(raw));
const withRecords = heapUsedMb();
const [sitesCatalog, sitesFirstMs] = timed(() => buildSitesCatalog(sites));
const withSites = heapUsedMb();
const [productsCatalog, productsFirstMs] = timed(() => buildProductsCatalog(products));
const withProducts = heapUsedMb();

const keys = keysOf(sites, products);
const result: ProbeResult = {
  records: {
    sites: sites.length,
    points: sites.reduce((n, site) => n + (site.points?.length ?? 0), 0),
    lanes: sites.reduce((n, site) => n + (site.points ?? []).reduce((m, point) => m + point.cargoLanes.length, 0), 0),
    products: productsCatalog.products.length,
  },
  heapUsedMb: {
    empty: round(empty, 1),
    records: round(withRecords - empty, 1),
    sitesCatalog: round(withSites - withRecords, 1),
    productsCatalog: round(withProducts - withSites, 1),
  },
  buildMs: {
    sites: { first: round(sitesFirstMs, 2), repeated: repeatedBuilds(() => buildSitesCatalog(sites)) },
    products: { first: round(productsFirstMs, 2), repeated: repeatedBuilds(() => buildProductsCatalog(products)) },
  },
  queryMicros: {
    sitesNear: timeQueries(() => {
      const args = randomNearArgs(keys);
      return () => sitesNear(sitesCatalog, { ...args, inStockOnly: true, accepts: (site) => site.state === 1 });
    }),
    availability: timeQueries(() => {
      const { goodsCode, ...args } = randomAvailabilityArgs(keys);
      return () => availability(sitesCatalog, goodsCode, { ...args, inStockOnly: true, enabledOnly: true });
    }),
  },
  queries: INDEX_PROBE_QUERIES,
};
process.stdout.write(JSON.stringify(result) + '\n');

// Private: every record of a list, first page then the rest at once, as the index's walk does.
async function walk<T>(path: string, one: (raw: Record<string, unknown>, report: DefectReporter) => T | null): Promise<T[]> {
  const page = async (n: number) => {
    const response = await fetch(`${upstream}${path}?page=${n}&pageSize=${PAGE_SIZE}`, { headers: { authorization: `Bearer ${token}` } });
    const envelope = (await response.json()) as { code?: number; result?: unknown };
    const records = envelope.code === 0 ? normalisePage(envelope.result, one, path, (n - 1) * PAGE_SIZE, () => {}) : null;
    if (!response.ok || records === null) throw new Error(`GET ${path} page ${n}: HTTP ${response.status}, code ${envelope.code}`);
    return records;
  };
  const first = await page(1);
  const rest = await Promise.all(Array.from({ length: Math.ceil(first.total / PAGE_SIZE) - 1 }, (_, i) => page(i + 2)));
  return [first, ...rest].flatMap((p) => p.items.filter((item): item is T => item !== null));
}

// Private: heapUsed after a full collection, in MB. Twice: the first may leave what finalisers free.
function heapUsedMb(): number {
  gc!();
  gc!();
  return process.memoryUsage().heapUsed / 1024 ** 2;
}

function timed<T>(run: () => T): [T, number] {
  const started = performance.now();
  const value = run();
  return [value, performance.now() - started];
}

function repeatedBuilds(build: () => unknown): LatencySummary {
  return summariseLatency(Array.from({ length: BUILD_REPEATS }, () => timed(build)[1]));
}

// Private: `INDEX_PROBE_QUERIES` unmeasured, then as many timed, each on fresh arguments (drawn
// outside the timing).
function timeQueries(prepare: () => () => unknown): LatencySummary {
  for (let i = 0; i < INDEX_PROBE_QUERIES; i += 1) prepare()();
  const micros: number[] = [];
  for (let i = 0; i < INDEX_PROBE_QUERIES; i += 1) {
    const query = prepare();
    micros.push(timed(query)[1] * 1000);
  }
  return summariseLatency(micros, 1);
}

// Private: the argument keys from the records themselves (the gateway scenario takes them from the mock).
function keysOf(siteRecords: readonly SiteRecord[], productRecords: readonly ProductRecord[]): IndexKeys {
  const located = siteRecords.flatMap((site) => (site.lat === null || site.lng === null ? [] : [{
    lat: site.lat,
    lng: site.lng,
    stockedGoodsCodes: [...new Set((site.points ?? []).flatMap((point) => point.cargoLanes)
      .flatMap((lane) => (lane.goodsCode !== null && (lane.stock ?? 0) > 0 ? [lane.goodsCode] : [])))],
  }]));
  return { locatedSites: located, goodsCodes: productRecords.map((product) => product.goodsCode) };
}

function requiredEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`catalog-index-probe: ${name} must be set`);
  return value;
}

function round(value: number, digits: number): number {
  return Math.round(value * 10 ** digits) / 10 ** digits;
}
