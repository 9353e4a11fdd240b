/**
 * The mock's demo sales (src/mock-upstream/sales.ts), ticked by hand: what a tick sells and
 * where, the restock rule, and the mock starting and stopping them.
 */
import { describe, expect, it } from 'vitest';
import { createMockUpstream, generateCatalog, type Catalog } from '../../../src/mock-upstream/index.js';
import { startSales } from '../../../src/mock-upstream/sales.js';
import { createManualScheduler } from '../../helpers/scheduler.js';

// Private: every lane's stock, keyed `site/point/index`.
function stocks(catalog: Catalog): Map<string, number> {
  const found = new Map<string, number>();
  for (const site of catalog.sites) {
    for (const point of site.points) point.cargolanes.forEach((lane, i) => found.set(`${site.code}/${point.code}/${i}`, lane.stock));
  }
  return found;
}

describe('demo sales', () => {
  it('sells perMinute items a minute at each site in service, one at a time, never at a site not in service nor below 0', () => {
    const catalog = generateCatalog();
    const open = catalog.sites.filter((site) => site.state === 1);
    const closed = new Set(catalog.sites.filter((site) => site.state !== 1).map((site) => site.code));
    expect(closed.size).toBeGreaterThan(0);
    const before = stocks(catalog);
    const sales = startSales(catalog, { perMinute: 60, scheduler: createManualScheduler(), restockTicks: 1000 });
    const sold = Array.from({ length: 5 }, () => sales.tick().sold).reduce((sum, n) => sum + n, 0);
    const after = stocks(catalog);

    // 60 a minute at each open site, a tick a second: one item per open site per tick, less
    // the picks of a site with nothing left (none here, so early on).
    expect(sold).toBe(5 * open.length);
    let taken = 0;
    for (const [key, stock] of after) {
      const was = before.get(key)!;
      expect(stock, key).toBeGreaterThanOrEqual(0);
      expect(stock, key).toBeLessThanOrEqual(was);
      if (stock < was) expect(closed.has(key.split('/')[0]!), key).toBe(false);
      taken += was - stock;
    }
    expect(taken).toBe(sold);
  });

  it('refills a lane holding a product to capacity once it has stood at 0 for restockTicks ticks, and no sooner', () => {
    const catalog = generateCatalog();
    const site = catalog.sites.find((candidate) => candidate.state === 1)!;
    const lane = site.points[0]!.cargolanes.find((candidate) => candidate.goodsCode)!;
    lane.stock = 0;
    const sales = startSales(catalog, { perMinute: 0, scheduler: createManualScheduler(), restockTicks: 3, capacity: 12 });
    expect(sales.tick().restocked).toBe(0);
    expect(lane.stock).toBe(0);
    sales.tick();
    expect(lane.stock).toBe(0);
    sales.tick();
    expect(lane.stock).toBe(12);
    // Every lane holding a product that was empty is full now; none is left at 0.
    expect(site.points.flatMap((point) => point.cargolanes).filter((l) => l.goodsCode && l.stock === 0)).toEqual([]);
  });

  it('keeps most lanes in stock however long it sells at the demo rate', () => {
    const catalog = generateCatalog();
    const lanes = catalog.sites.filter((s) => s.state === 1).flatMap((s) => s.points.flatMap((p) => p.cargolanes)).filter((l) => l.goodsCode);
    const items = lanes.reduce((sum, lane) => sum + lane.stock, 0);
    const sales = startSales(catalog, { perMinute: 60, scheduler: createManualScheduler() });
    let sold = 0;
    for (let i = 0; i < 2000; i += 1) sold += sales.tick().sold;
    // Over half an hour of sales, several times the stock there was, yet nine lanes in ten hold some.
    expect(sold).toBeGreaterThan(5 * items);
    expect(lanes.filter((lane) => lane.stock > 0).length).toBeGreaterThan(0.8 * lanes.length);
  });

  it('is started by the mock on its scheduler, a tick a second, and stopped when the mock closes', async () => {
    const scheduler = createManualScheduler();
    const mock = await createMockUpstream({ sales: { perMinute: 60, scheduler } });
    expect(scheduler.intervals).toEqual([1000]);
    const before = stocks(mock.catalog);
    scheduler.tick();
    expect(stocks(mock.catalog)).not.toEqual(before);
    await mock.close();
    expect(scheduler.running()).toBe(0);
    const quiet = createManualScheduler();
    await (await createMockUpstream({ sales: { perMinute: 0, scheduler: quiet } })).close();
    expect(quiet.intervals).toEqual([]);
  });

  it('refuses options that make no sense, naming them', () => {
    expect(() => startSales(generateCatalog(), { perMinute: -1 })).toThrow(/perMinute must be a number >= 0, but got: -1/);
    expect(() => startSales(generateCatalog(), { perMinute: 1, restockTicks: 0 })).toThrow(/restockTicks/);
  });
});
