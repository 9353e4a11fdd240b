/**
 * What live subscriptions make of a poll's reads: a product's stock across the matching sites, and
 * the lanes that crossed a threshold between two reads. Pure: the subscriptions decide when to send.
 */
import { availability, buildSitesCatalog, type SitesCatalog } from '../catalog/catalog.js';
import type { ProductStockModel, StockAlertModel } from '../data/models.js';
import type { SiteRecord } from '../upstream/records.js';

/** `Subscription.productStock`'s arguments, checked. */
export interface ProductStockQuery {
  goodsCode: string;
  near?: { lat: number; lng: number };
  radiusKm?: number;
  cityCode?: string;
  /** Only lanes of enabled sites (`state` 1). */
  enabledOnly: boolean;
}

/** Lanes an update lists at most (`ProductStockUpdate.availability`). */
export const MAX_AVAILABILITY = 50;

// Private: one catalog per read of every site, however many product subscribers share it.
const catalogs = new WeakMap<readonly SiteRecord[], SitesCatalog>();

/** The catalog of a read of every site, built once per read. */
export function catalogOf(sites: readonly SiteRecord[]): SitesCatalog {
  let catalog = catalogs.get(sites);
  if (catalog === undefined) catalogs.set(sites, (catalog = buildSitesCatalog(sites)));
  return catalog;
}

/** The product's stock in `catalog` as `query` filters it, with a fingerprint of what an event shows. */
export function productStockOf(catalog: SitesCatalog, query: ProductStockQuery, at: Date): { value: ProductStockModel; fingerprint: string } {
  const { cityCode, near, radiusKm, enabledOnly } = query;
  const filters = { cityCode, near, radiusKm, enabledOnly, inStockOnly: true };
  // Every matching lane counts towards the total; the list shows the first MAX_AVAILABILITY.
  const lanes = availability(catalog, query.goodsCode, { ...filters, first: Number.MAX_SAFE_INTEGER });
  const totalStock = lanes.reduce((sum, lane) => sum + lane.stock, 0);
  const shown = lanes.slice(0, MAX_AVAILABILITY).map(({ site, point, lane, stock, distanceKm }) => ({
    site, point: { ...point, site }, lane, stock, distanceKm,
  }));
  const fingerprint = `${totalStock}|${shown.map((lane) => `${lane.site.code}/${lane.point.code}/${lane.point.cargoLanes.indexOf(lane.lane)}=${lane.stock}`).join(',')}`;
  return { value: { goodsCode: query.goodsCode, totalStock, availability: shown, updatedAt: at.toISOString() }, fingerprint };
}

/** `Subscription.stockAlerts`'s arguments, checked. */
export interface AlertQuery {
  /** Only these sites; undefined: every site (of `cityCode`, when given). */
  siteCodes?: ReadonlySet<string>;
  cityCode?: string;
  threshold: number;
}

/** Stock of each lane by `site/point/index`, as of one read. */
export type LaneStocks = Map<string, number>;

/** The stock of every lane of the sites `query` watches. */
export function laneStocks(sites: readonly (SiteRecord | null)[], query: AlertQuery): LaneStocks {
  const stocks: LaneStocks = new Map();
  for (const site of sites) {
    if (site === null || !watches(query, site)) continue;
    for (const point of site.points ?? []) {
      point.cargoLanes.forEach((lane, index) => {
        if (lane.stock !== null) stocks.set(`${site.code}/${point.code}/${index}`, lane.stock);
      });
    }
  }
  return stocks;
}

/** The lanes of `sites` whose stock crossed the threshold since `previous`. */
export function crossings(previous: LaneStocks, sites: readonly (SiteRecord | null)[], query: AlertQuery, at: Date): StockAlertModel[] {
  const alerts: StockAlertModel[] = [];
  for (const site of sites) {
    if (site === null || !watches(query, site)) continue;
    for (const point of site.points ?? []) {
      point.cargoLanes.forEach((lane, laneIndex) => {
        const before = previous.get(`${site.code}/${point.code}/${laneIndex}`);
        if (before === undefined || lane.stock === null) return;
        const wasLow = before <= query.threshold;
        const isLow = lane.stock <= query.threshold;
        if (wasLow === isLow) return;
        alerts.push({
          kind: isLow ? 'LOW' : 'RESTOCKED', site, point: { ...point, site }, lane, laneIndex,
          stock: lane.stock, previousStock: before, threshold: query.threshold, at: at.toISOString(),
        });
      });
    }
  }
  return alerts;
}

function watches(query: AlertQuery, site: SiteRecord): boolean {
  return (query.siteCodes === undefined || query.siteCodes.has(site.code)) && (query.cityCode === undefined || site.cityCode === query.cityCode);
}
