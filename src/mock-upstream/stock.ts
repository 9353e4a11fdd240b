/**
 * Stock controls: change lanes in the live catalog, one chosen by the test or several at random,
 * as sales and restocking would between two polls; every operation sees the change at once.
 */
import type { Catalog, MockLane, MockSite } from './data.js';
import { createRandom, type Random } from './random.js';

/** Options of `mutateStock`; all optional. */
export interface MutateStockOptions {
  /** How many distinct lanes to change, 1 or more. Default 1. */
  lanes?: number;
  /** Only lanes of these sites (each must exist). Default: every site. */
  siteCodes?: readonly string[];
  /** The largest stock a lane is given, 1 or more; the smallest is 0 (the lane runs out). Default 20, as generated. */
  maxStock?: number;
  /** Seed of a random source for this call alone. Default: the mock's own seeded sequence. */
  seed?: number;
}

/** One lane changed by `mutateStock`. */
export interface StockChange {
  siteCode: string;
  pointCode: string;
  /** The lane's position in its point, from 0. */
  laneIndex: number;
  /** The product the lane holds. */
  goodsCode: string;
  /** Its stock before. */
  from: number;
  /** Its stock now, never equal to `from`. */
  to: number;
}

/** The largest stock `mutateStock` gives by default: the generator's own maximum. */
const DEFAULT_MAX_STOCK = 20;

/** Set the stock of lane `laneIndex` (0-based) of a point; throws if there is no such lane. */
export function setStock(catalog: Catalog, siteCode: string, pointCode: string, laneIndex: number, stock: number): void {
  if (!Number.isInteger(stock) || stock < 0) throw new RangeError(`setStock: stock must be an integer >= 0, but got: ${stock}`);
  const site = catalog.sites.find((s) => s.code === siteCode);
  if (!site) throw new Error(`setStock: no site with code ${JSON.stringify(siteCode)}`);
  const point = site.points.find((p) => p.code === pointCode);
  if (!point) throw new Error(`setStock: site ${siteCode} has no point ${JSON.stringify(pointCode)}`);
  const lane = point.cargolanes[laneIndex];
  if (!lane) throw new Error(`setStock: point ${pointCode} has no lane ${laneIndex} (it has ${point.cargolanes.length})`);
  lane.stock = stock;
}

/**
 * Give `options.lanes` distinct random lanes holding a product each a new stock in 0..`maxStock`
 * other than its current one; returns the changes in the order made. Throws for an unknown site
 * code, or more lanes than there are.
 */
export function mutateStock(catalog: Catalog, random: Random, options: MutateStockOptions = {}): StockChange[] {
  const count = options.lanes ?? 1;
  const maxStock = options.maxStock ?? DEFAULT_MAX_STOCK;
  if (!Number.isInteger(count) || count < 1) throw new RangeError(`mutateStock: lanes must be an integer >= 1, but got: ${count}`);
  if (!Number.isInteger(maxStock) || maxStock < 1) throw new RangeError(`mutateStock: maxStock must be an integer >= 1, but got: ${maxStock}`);
  const candidates = stockedLanes(sitesNamed(catalog, options.siteCodes));
  if (count > candidates.length) {
    throw new RangeError(`mutateStock: lanes must be at most the ${candidates.length} lanes holding a product there, but got: ${count}`);
  }
  const source = options.seed === undefined ? random : createRandom(options.seed);
  return drawDistinct(candidates, count, source).map((slot) => {
    const from = slot.lane.stock;
    const to = newStock(from, maxStock, source);
    slot.lane.stock = to;
    return { siteCode: slot.siteCode, pointCode: slot.pointCode, laneIndex: slot.laneIndex, goodsCode: slot.goodsCode, from, to };
  });
}

// Private: a lane holding a product, with where it is.
interface LaneSlot {
  siteCode: string;
  pointCode: string;
  laneIndex: number;
  goodsCode: string;
  lane: MockLane;
}

// Private: the sites named, in the order named, or every site; an unknown code is an error.
function sitesNamed(catalog: Catalog, siteCodes: readonly string[] | undefined): MockSite[] {
  if (siteCodes === undefined) return catalog.sites;
  const byCode = new Map(catalog.sites.map((site) => [site.code, site]));
  return [...new Set(siteCodes)].map((code) => {
    const site = byCode.get(code);
    if (!site) throw new Error(`mutateStock: no site with code ${JSON.stringify(code)}`);
    return site;
  });
}

// Private: every lane of `sites` that holds a product.
function stockedLanes(sites: readonly MockSite[]): LaneSlot[] {
  const slots: LaneSlot[] = [];
  for (const site of sites) {
    for (const point of site.points) {
      point.cargolanes.forEach((lane, laneIndex) => {
        if (lane.goodsCode) slots.push({ siteCode: site.code, pointCode: point.code, laneIndex, goodsCode: lane.goodsCode, lane });
      });
    }
  }
  return slots;
}

// Private: `count` distinct items by a partial Fisher–Yates shuffle (of a copy).
function drawDistinct<T>(items: readonly T[], count: number, random: Random): T[] {
  const pool = [...items];
  for (let i = 0; i < count; i += 1) {
    const j = random.int(i, pool.length - 1);
    [pool[i], pool[j]] = [pool[j]!, pool[i]!];
  }
  return pool.slice(0, count);
}

// Private: a stock in 0..maxStock, uniformly among those other than `from`.
function newStock(from: number, maxStock: number, random: Random): number {
  const inRange = Number.isInteger(from) && from >= 0 && from <= maxStock;
  if (!inRange) return random.int(0, maxStock);
  const drawn = random.int(0, maxStock - 1);
  return drawn >= from ? drawn + 1 : drawn;
}
