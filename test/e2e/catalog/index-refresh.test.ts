/**
 * The catalog index's life: how it is built, refreshed, kept when refreshes fail, and how much
 * upstream work it costs. Time moves on the harness's manual clock.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { callsByPath, startGateway, type Harness } from '../../helpers/gateway.js';
import { until } from '../fleet/fleet.js';

const SITES = '/api/site/list-with-points';
const PRODUCTS = '/api/products/list';
const REFRESH_S = 10;

let h: Harness;
afterEach(async () => h?.close());

/** The first lane of the catalog holding a product, and where it is. */
function firstStockedLane(harness: Harness) {
  const site = harness.mock.catalog.sites.find((s) => s.points[0]!.cargolanes[0]!.goodsCode !== undefined)!;
  const point = site.points[0]!;
  return { site, point, goodsCode: point.cargolanes[0]!.goodsCode! };
}

/** Total stock of `goodsCode` in the mock's own data. */
function stockIn(harness: Harness, goodsCode: string): number {
  return harness.mock.catalog.sites
    .flatMap((site) => site.points.flatMap((point) => point.cargolanes))
    .filter((lane) => lane.goodsCode === goodsCode)
    .reduce((sum, lane) => sum + lane.stock, 0);
}

const totalStock = (goodsCode: string) => `{ product(goodsCode: "${goodsCode}") { totalStock } }`;

describe('building the index', () => {
  it('takes one call per upstream page of sites and of products on a cold start, pages in parallel', async () => {
    // 200 ms per page: the pages overlap at the mock even when a busy machine sends them slowly.
    h = await startGateway({ mock: { catalog: { sites: 420, products: 230 }, latencyMs: 200 } });
    const { site } = firstStockedLane(h);
    const answer = await h.query(`{ sitesNear(lat: ${site.lat}, lng: ${site.lng}) { site { code } } searchProducts(first: 1) { goodsCode } }`);
    expect(answer.errors).toBeUndefined();
    const cap = h.mock.behaviour.maxPageSize;
    expect(callsByPath(h.mock)).toEqual({ [SITES]: Math.ceil(420 / cap), [PRODUCTS]: Math.ceil(230 / cap) });
    expect(h.mock.maxInFlight(SITES)).toBeGreaterThan(2);
  });

  it('answers 1,000 sitesNear and availability queries on a warm index with no upstream call', async () => {
    h = await startGateway();
    const { site, goodsCode } = firstStockedLane(h);
    await h.query(`{ sitesNear(lat: ${site.lat}, lng: ${site.lng}) { distanceKm } }`);
    await h.query(`{ product(goodsCode: "${goodsCode}") { goodsCode } }`);
    h.mock.resetCounters();
    const sites = h.mock.catalog.sites;
    for (let i = 0; i < 1000; i += 1) {
      const at = sites[i % sites.length]!;
      const answer = await h.query(i % 2 === 0
        ? `{ sitesNear(lat: ${at.lat}, lng: ${at.lng}, radiusKm: 10) { distanceKm site { code name points { code } } } }`
        : `{ product(goodsCode: "${goodsCode}") { availability(near: { lat: ${at.lat}, lng: ${at.lng} }) { stock distanceKm site { code } } } }`);
      expect(answer.errors).toBeUndefined();
    }
    expect(h.mock.calls()).toBe(0);
  });

  it('is built at start with INDEX_WARM_ON_START, before any query', async () => {
    h = await startGateway({ env: { INDEX_WARM_ON_START: 'true' } });
    const cap = h.mock.behaviour.maxPageSize;
    const pages = { [SITES]: Math.ceil(h.mock.catalog.sites.length / cap), [PRODUCTS]: Math.ceil(h.mock.catalog.products.length / cap) };
    await until(async () => h.mock.calls(SITES) === pages[SITES] && h.mock.calls(PRODUCTS) === pages[PRODUCTS] && h.mock.inFlight() === 0);
    h.mock.resetCounters();
    const { goodsCode } = firstStockedLane(h);
    expect((await h.query(`{ searchProducts(first: 3) { totalStock } }`)).errors).toBeUndefined();
    expect((await h.query(totalStock(goodsCode))).data.product.totalStock).toBe(stockIn(h, goodsCode));
    // The product came from the index's walk of the product list: nothing more was asked.
    expect(h.mock.calls()).toBe(0);
  });

  it('feeds the entity caches: a site and its products after an index query cost nothing', async () => {
    h = await startGateway();
    const { site } = firstStockedLane(h);
    await h.query(`{ sitesNear(lat: ${site.lat}, lng: ${site.lng}) { distanceKm } searchProducts(first: 1) { goodsCode } }`);
    h.mock.resetCounters();
    const answer = await h.query(`{ site(code: "${site.code}") { name city { name } points { cargoLanes { product { productName } } } } }`);
    expect(answer.data.site.name).toBe(site.name);
    expect(h.mock.calls()).toBe(0);
  });
});

describe('refreshing the index', () => {
  it('shows stock changes in availability after one refresh; the first query past INDEX_REFRESH_S may see the old value', async () => {
    h = await startGateway({ env: { INDEX_REFRESH_S: String(REFRESH_S) } });
    const { site, point, goodsCode } = firstStockedLane(h);
    const laneStock = point.cargolanes[0]!.stock;
    const query = `{ product(goodsCode: "${goodsCode}") {
      totalStock availability(inStockOnly: false, first: 1000) { stock site { code } point { code } } } }`;
    const stockSeen = async () => {
      const { data } = await h.query(query);
      const lane = data.product.availability.find((a: any) => a.site.code === site.code && a.point.code === point.code);
      return { total: data.product.totalStock, lane: lane.stock };
    };
    const before = stockIn(h, goodsCode);
    expect(await stockSeen()).toEqual({ total: before, lane: laneStock });

    h.mock.setStock(site.code, point.code, 0, laneStock + 7);
    h.clock.advance(REFRESH_S * 1000 - 1);
    expect(await stockSeen()).toEqual({ total: before, lane: laneStock });
    h.clock.advance(2);
    expect([laneStock, laneStock + 7]).toContain((await stockSeen()).lane);
    await until(async () => (await stockSeen()).lane === laneStock + 7);
    expect(await stockSeen()).toEqual({ total: before + 7, lane: laneStock + 7 });
  });

  it('says how old its data is in extensions.dataAge', async () => {
    h = await startGateway({ env: { INDEX_REFRESH_S: String(REFRESH_S) } });
    const { goodsCode } = firstStockedLane(h);
    expect((await h.query(totalStock(goodsCode))).extensions).toEqual({ dataAge: 0 });
    h.clock.advance(7_400);
    expect((await h.query(totalStock(goodsCode))).extensions).toEqual({ dataAge: 7 });
    expect((await h.query(`{ product(goodsCode: "${goodsCode}") { productName } }`)).extensions).toBeUndefined();
  });

  it('never blocks a query: past the interval the index answers at once while the refresh hangs', async () => {
    h = await startGateway({ env: { INDEX_REFRESH_S: String(REFRESH_S), UPSTREAM_TIMEOUT_MS: '5000', UPSTREAM_RETRIES: '0' } });
    const { goodsCode } = firstStockedLane(h);
    const stock = (await h.query(totalStock(goodsCode))).data.product.totalStock;
    h.mock.resetCounters();
    h.mock.fault(SITES, 'hang');
    h.clock.advance(3 * REFRESH_S * 1000); // three intervals: a while, but within the stale window
    // No stale marker: each answer came while the refresh still hung (it fails only after
    // UPSTREAM_TIMEOUT_MS, and a query that waited for it would be marked), not after a wait.
    for (let i = 0; i < 3; i += 1) {
      const answer = await h.query(totalStock(goodsCode));
      expect(answer.data.product.totalStock).toBe(stock);
      expect(answer.extensions).toEqual({ dataAge: 3 * REFRESH_S });
    }
    // One refresh, however many queries found the index old.
    await until(async () => h.mock.inFlight(SITES) > 0);
    expect(h.mock.calls(SITES)).toBe(1);
  });

  it('keeps the last good index when a refresh fails, and marks the answers stale', async () => {
    h = await startGateway({ env: { INDEX_REFRESH_S: String(REFRESH_S), UPSTREAM_RETRIES: '0', CACHE_STALE_IF_ERROR_S: '60', UPSTREAM_BREAKER_COOLDOWN_MS: '10' } });
    const { goodsCode } = firstStockedLane(h);
    const stock = (await h.query(totalStock(goodsCode))).data.product.totalStock;
    h.mock.resetCounters();
    h.mock.fault(SITES, 'http503');
    h.clock.advance(REFRESH_S * 1000 + 1);
    await h.query(totalStock(goodsCode)); // starts the refresh, which fails
    await until(async () => h.mock.calls(SITES) > 0 && h.mock.inFlight(SITES) === 0);
    // A failed refresh is not tried again for a second, however many queries come.
    const failedBuilds = async () => {
      const text = await (await fetch(`${h.url}/metrics`)).text();
      return Number(/^gateway_index_builds_total\{part="sites",outcome="error"\} (\d+)$/m.exec(text)?.[1] ?? 0);
    };
    await until(async () => (await failedBuilds()) === 1);
    h.clock.advance(999);
    await h.query(totalStock(goodsCode));
    // Time for a build the query wrongly started to end; on a slow machine this can only miss
    // such a build, never fail a right one.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await failedBuilds()).toBe(1);
    h.clock.advance(1);
    const stale = await h.query(totalStock(goodsCode));
    expect(stale.data.product.totalStock).toBe(stock);
    expect(stale.extensions?.stale).toEqual([{ key: 'index:sites', ageSeconds: REFRESH_S + 1 }]);
    await until(async () => (await failedBuilds()) === 2);

    // Still served, marked stale, through the stale-if-error window …
    h.clock.advance(58_000);
    const late = await h.query(totalStock(goodsCode));
    expect(late.data.product.totalStock).toBe(stock);
    expect(late.extensions?.stale).toEqual([{ key: 'index:sites', ageSeconds: REFRESH_S + 59 }]);

    // … past it, a query waits for a refresh, and gets its error.
    h.clock.advance(2_000);
    const failed = await h.query(totalStock(goodsCode));
    expect(failed.data?.product ?? null).toBeNull();
    expect(failed.errors?.[0]?.extensions?.code).toMatch(/^UPSTREAM_/);

    // Once the upstream is back, the next query rebuilds it.
    h.mock.clearFaults();
    await new Promise((resolve) => setTimeout(resolve, 20)); // the breaker's cooldown (at least 10 ms must pass)
    expect((await h.query(totalStock(goodsCode))).extensions).toEqual({ dataAge: 0 });
  });

  it('makes no upstream call while the gateway is idle, and rebuilds the index for the first query after a long idle', async () => {
    h = await startGateway({ env: { INDEX_REFRESH_S: String(REFRESH_S) } });
    const { goodsCode } = firstStockedLane(h);
    await h.query(totalStock(goodsCode));
    h.mock.resetCounters();
    h.clock.advance(3_600_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(h.mock.callLog()).toEqual([]);
    // Idle past the stale window (the interval and CACHE_STALE_IF_ERROR_S), the next query waits
    // for a fresh index rather than answer with an hour-old one.
    expect((await h.query(totalStock(goodsCode))).extensions).toEqual({ dataAge: 0 });
    expect(h.mock.calls(SITES)).toBeGreaterThan(0);
  });

  it('keeps the index out of the response cache: an answer states the age it had when made', async () => {
    h = await startGateway({ env: { INDEX_REFRESH_S: String(REFRESH_S) } });
    const { goodsCode } = firstStockedLane(h);
    await h.query(totalStock(goodsCode));
    h.clock.advance(3_000);
    expect((await h.query(totalStock(goodsCode))).extensions).toEqual({ dataAge: 3 });
    h.clock.advance(3_000);
    expect((await h.query(totalStock(goodsCode))).extensions).toEqual({ dataAge: 6 });
  });
});

describe('watching the index', () => {
  it('counts its builds, times them and shows its age in /metrics', async () => {
    h = await startGateway({ env: { INDEX_REFRESH_S: String(REFRESH_S) } });
    const metrics = async () => (await fetch(`${h.url}/metrics`)).text();
    expect(await metrics()).not.toMatch(/^gateway_index_age_seconds\{/m);
    await h.query(`{ searchProducts(first: 1) { totalStock } }`);
    h.clock.advance(4_000);
    const text = await metrics();
    expect(text).toMatch(/^gateway_index_builds_total\{part="sites",outcome="ok"\} 1$/m);
    expect(text).toMatch(/^gateway_index_builds_total\{part="products",outcome="ok"\} 1$/m);
    expect(text).toMatch(/^gateway_index_build_duration_seconds_count\{part="sites"\} 1$/m);
    // Four seconds on the gateway's clock, plus the moments between the walk's end and its build
    // (real time, so a busy machine adds to it; the bound still tells seconds from ms).
    const age = Number(/^gateway_index_age_seconds\{part="sites"\} (\S+)$/m.exec(text)?.[1]);
    expect(age).toBeGreaterThanOrEqual(4);
    expect(age).toBeLessThan(9);
  });
});
