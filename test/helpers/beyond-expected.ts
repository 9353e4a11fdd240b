/**
 * What issue #7's fields should answer, computed independently from the mock upstream's catalog:
 * distances, opening hours, search, availability and stock. Shares no code with src/ (only the
 * mock's types), so a misreading of the contract cannot hide on both sides.
 */
import { expect } from 'vitest';
import type { Catalog, MockLane, MockProduct, MockSite } from '../../src/mock-upstream/index.js';

/** Mean Earth radius of the contract, in km. */
const EARTH_RADIUS_KM = 6371;
const SECONDS_A_DAY = 86_400;
/** The gateway's default `SITE_TIMEZONE`. */
export const DEFAULT_TIME_ZONE = 'Asia/Shanghai';

/** Great-circle distance between two points in decimal degrees, in km (haversine). */
export function haversineKm(lat1: number, lng1: number, lat2: number, lng2: number): number {
  const rad = Math.PI / 180;
  const dLat = (lat2 - lat1) * rad;
  const dLng = (lng2 - lng1) * rad;
  const a = Math.sin(dLat / 2) ** 2 + Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(dLng / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(a)));
}

/** Whether a site's stored coordinates are usable: finite numbers within the valid ranges. */
export function hasCoordinates(site: MockSite): boolean {
  const { lat, lng } = site as { lat: unknown; lng: unknown };
  return typeof lat === 'number' && typeof lng === 'number' && Number.isFinite(lat) && Number.isFinite(lng)
    && Math.abs(lat) <= 90 && Math.abs(lng) <= 180;
}

/** Distance from a point to a site, in km. */
export function distanceToSite(from: { lat: number; lng: number }, site: MockSite): number {
  return haversineKm(from.lat, from.lng, site.lat, site.lng);
}

// Private: `HH:MM` or `HH:MM:SS` as seconds of the day, or null.
function secondsOfDay(text: unknown): number | null {
  if (typeof text !== 'string') return null;
  const match = /^(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(text.trim());
  if (!match) return null;
  const [h, m, s] = [Number(match[1]), Number(match[2]), Number(match[3] ?? 0)];
  return h < 24 && m < 60 && s < 60 ? h * 3600 + m * 60 + s : null;
}

// Private: the wall-clock time of an instant in a time zone, as seconds of the day.
function wallClockSeconds(instantMs: number, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-GB', {
    timeZone, hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23',
  }).formatToParts(new Date(instantMs));
  const part = (type: string) => Number(parts.find((p) => p.type === type)!.value);
  return part('hour') * 3600 + part('minute') * 60 + part('second');
}

/**
 * The time of day an `at`/`openAt` argument means in `timeZone`, in seconds: `HH:MM[:SS]` as it
 * is, an ISO date-time with an offset converted, one without an offset taken as wall-clock time.
 */
export function timeOfDayAt(at: string, timeZone = DEFAULT_TIME_ZONE): number {
  const plain = secondsOfDay(at);
  if (plain !== null) return plain;
  const iso = /^\d{4}-\d{2}-\d{2}T(\d{2}:\d{2}(?::\d{2})?)(?:\.\d+)?(Z|[+-]\d{2}:\d{2})?$/.exec(at.trim());
  if (!iso) throw new Error(`timeOfDayAt: not a time this helper knows: ${at}`);
  if (iso[2] === undefined) return secondsOfDay(iso[1])!;
  return wallClockSeconds(Date.parse(at), timeZone);
}

/** The time of day now in `timeZone`, in seconds. */
export function timeOfDayNow(timeZone = DEFAULT_TIME_ZONE): number {
  return wallClockSeconds(Date.now(), timeZone);
}

/** Whether a site's hours include `seconds` (of the day); null when its hours are unknown. */
export function isOpenAt(site: MockSite, seconds: number): boolean | null {
  const open = secondsOfDay(site.openTime);
  const close = secondsOfDay(site.closeTime);
  if (open === null || close === null) return null;
  if (open === close) return true;
  if (open < close) return open <= seconds && seconds < close;
  return seconds >= open || seconds < close;
}

/** `HH:MM:SS` of a number of seconds of the day (wrapping around midnight). */
export function hhmmss(seconds: number): string {
  const s = ((Math.floor(seconds) % SECONDS_A_DAY) + SECONDS_A_DAY) % SECONDS_A_DAY;
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(Math.floor(s / 3600))}:${two(Math.floor(s / 60) % 60)}:${two(s % 60)}`;
}

// Private: a lane's stock, missing = 0.
function stockOf(lane: MockLane): number {
  return typeof lane.stock === 'number' ? lane.stock : 0;
}

/** Arguments of `sitesNear`, with the schema's defaults applied by `expectedSitesNear`. */
export interface NearArgs {
  lat: number;
  lng: number;
  radiusKm?: number;
  first?: number;
  cityCode?: string;
  openAt?: string;
  enabledOnly?: boolean;
  hasProduct?: string;
  inStockOnly?: boolean;
}

/** A site and its distance, as `sitesNear { site { code } distanceKm }` answers. */
export interface CodeAndDistance {
  code: string;
  distanceKm: number;
}

// Private: whether a site passes sitesNear's filters other than distance.
function passesNearFilters(site: MockSite, args: NearArgs, timeZone: string): boolean {
  if (args.cityCode !== undefined && site.cityCode !== args.cityCode.trim()) return false;
  if ((args.enabledOnly ?? true) && site.state !== 1) return false;
  if (args.openAt !== undefined && isOpenAt(site, timeOfDayAt(args.openAt, timeZone)) !== true) return false;
  if (args.hasProduct === undefined) return true;
  const goodsCode = args.hasProduct.trim();
  const lanes = site.points.flatMap((point) => point.cargolanes).filter((lane) => lane.goodsCode === goodsCode);
  if (lanes.length === 0) return false;
  return !(args.inStockOnly ?? true) || lanes.reduce((sum, lane) => sum + stockOf(lane), 0) > 0;
}

/** What `sitesNear(args)` should answer: codes and distances, nearest first. */
export function expectedSitesNear(catalog: Catalog, args: NearArgs, timeZone = DEFAULT_TIME_ZONE): CodeAndDistance[] {
  const radiusKm = args.radiusKm ?? 5;
  return catalog.sites
    .filter((site) => hasCoordinates(site) && passesNearFilters(site, args, timeZone))
    .map((site) => ({ code: site.code, distanceKm: distanceToSite(args, site) }))
    .filter((entry) => entry.distanceKm <= radiusKm)
    .sort((a, b) => a.distanceKm - b.distanceKm)
    .slice(0, args.first ?? 20);
}

/** `sitesNear { site { code } distanceKm }` items flattened to codes and distances. */
export function flattenNear(items: { site: { code: string }; distanceKm: number }[]): CodeAndDistance[] {
  return items.map((item) => ({ code: item.site.code, distanceKm: item.distanceKm }));
}

/** Asserts the same codes in the same order, and distances equal to 6 decimals. */
export function expectSameDistances(actual: CodeAndDistance[], expected: CodeAndDistance[]): void {
  expect(actual.map((entry) => entry.code)).toEqual(expected.map((entry) => entry.code));
  actual.forEach((entry, i) => expect(entry.distanceKm, entry.code).toBeCloseTo(expected[i]!.distanceKm, 6));
}

/** Text as product search compares it: no case, no Latin accents, no full-width forms. */
export function searchFold(text: string): string {
  return text.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').normalize('NFC').toLowerCase().trim();
}

/** The products `searchProducts(text, ipName, first)` should answer, as goods codes. */
export function expectedSearch(catalog: Catalog, args: { text?: string; ipName?: string; first?: number }): string[] {
  const text = searchFold(args.text ?? '');
  const ipName = searchFold(args.ipName ?? '');
  return catalog.products
    .filter((p: MockProduct) => text === '' || searchFold(p.productName).includes(text))
    .filter((p: MockProduct) => ipName === '' || searchFold(p.ipName) === ipName)
    .slice(0, args.first ?? 20)
    .map((p) => p.goodsCode);
}

/** Arguments of `Product.availability`. */
export interface AvailabilityArgs {
  cityCode?: string;
  near?: { lat: number; lng: number };
  radiusKm?: number;
  inStockOnly?: boolean;
  enabledOnly?: boolean;
  first?: number;
}

/** One availability entry as the test queries it: `site { code } point { code } lane { goodsCode stock } stock distanceKm`. */
export interface AvailabilityEntry {
  site: { code: string };
  point: { code: string };
  lane: { goodsCode: string; stock: number };
  stock: number;
  distanceKm: number | null;
}

export const AVAILABILITY_FIELDS = `site { code } point { code } lane { goodsCode stock } stock distanceKm`;

/** What `product(goodsCode) { availability(args) }` should answer. */
export function expectedAvailability(catalog: Catalog, goodsCode: string, args: AvailabilityArgs = {}): AvailabilityEntry[] {
  const entries: AvailabilityEntry[] = [];
  for (const site of catalog.sites) {
    if (args.cityCode !== undefined && site.cityCode !== args.cityCode.trim()) continue;
    if ((args.enabledOnly ?? true) && site.state !== 1) continue;
    if (args.near && !hasCoordinates(site)) continue;
    const distanceKm = args.near ? distanceToSite(args.near, site) : null;
    if (distanceKm !== null && args.radiusKm !== undefined && distanceKm > args.radiusKm) continue;
    for (const point of site.points) {
      for (const lane of point.cargolanes) {
        if (lane.goodsCode !== goodsCode) continue;
        if ((args.inStockOnly ?? true) && stockOf(lane) <= 0) continue;
        const stock = stockOf(lane);
        entries.push({ site: { code: site.code }, point: { code: point.code }, lane: { goodsCode, stock }, stock, distanceKm });
      }
    }
  }
  // Array.prototype.sort is stable: lanes of one site keep their point and lane order.
  if (args.near) entries.sort((a, b) => a.distanceKm! - b.distanceKm!);
  return entries.slice(0, args.first ?? 50);
}

/** Asserts availability entries equal, distances to 6 decimals. */
export function expectSameAvailability(actual: AvailabilityEntry[], expected: AvailabilityEntry[]): void {
  const strip = (entries: AvailabilityEntry[]) => entries.map(({ distanceKm: _d, ...rest }) => rest);
  expect(strip(actual)).toEqual(strip(expected));
  actual.forEach((entry, i) => {
    const want = expected[i]!.distanceKm;
    if (want === null) expect(entry.distanceKm).toBeNull();
    else expect(entry.distanceKm).toBeCloseTo(want, 6);
  });
}

/** Items of a product over every lane of every site. */
export function expectedTotalStock(catalog: Catalog, goodsCode: string): number {
  return catalog.sites
    .flatMap((site) => site.points.flatMap((point) => point.cargolanes))
    .filter((lane) => lane.goodsCode === goodsCode)
    .reduce((sum, lane) => sum + stockOf(lane), 0);
}

/** What `Site.stockSummary` should answer. */
export function expectedStockSummary(site: MockSite): { lanes: number; emptyLanes: number; totalStock: number } {
  const lanes = site.points.flatMap((point) => point.cargolanes);
  return {
    lanes: lanes.length,
    emptyLanes: lanes.filter((lane) => lane.goodsCode === undefined || stockOf(lane) <= 0).length,
    totalStock: lanes.reduce((sum, lane) => sum + stockOf(lane), 0),
  };
}

/** Goods codes ordered by how many lanes hold them, most first (ties in catalog order). */
export function productsByLaneCount(catalog: Catalog): string[] {
  const counts = new Map<string, number>(catalog.products.map((p) => [p.goodsCode, 0]));
  for (const lane of catalog.sites.flatMap((site) => site.points.flatMap((point) => point.cargolanes))) {
    if (lane.goodsCode !== undefined && counts.has(lane.goodsCode)) counts.set(lane.goodsCode, counts.get(lane.goodsCode)! + 1);
  }
  return [...counts].sort((a, b) => b[1] - a[1]).map(([code]) => code);
}

/** A page of `items` the way the gateway pages: `{ total, page, pageSize, hasNextPage, items }`. */
export function expectedPage<T>(items: readonly T[], page: number, pageSize: number) {
  return {
    total: items.length,
    page,
    pageSize,
    hasNextPage: page * pageSize < items.length,
    items: items.slice((page - 1) * pageSize, page * pageSize),
  };
}

/** The code of the city with the most sites (the first such in city order). */
export function biggestCity(catalog: Catalog): string {
  const count = (code: string) => catalog.sites.filter((site) => site.cityCode === code).length;
  return catalog.cities.reduce((best, city) => (count(city.code) > count(best.code) ? city : best)).code;
}

/** The mean position of a city's sites. */
export function centreOf(catalog: Catalog, cityCode: string): { lat: number; lng: number } {
  const sites = catalog.sites.filter((site) => site.cityCode === cityCode && hasCoordinates(site));
  const mean = (pick: (site: MockSite) => number) => sites.reduce((sum, site) => sum + pick(site), 0) / sites.length;
  return { lat: mean((site) => site.lat), lng: mean((site) => site.lng) };
}

/**
 * A query on `field` passing only the arguments given (so absent ones take the schema's
 * defaults), each as a variable of the type in `types`.
 */
export function queryWithArgs(
  field: string, args: Record<string, unknown>, types: Record<string, string>, selection: string,
): { query: string; variables: Record<string, unknown> } {
  const names = Object.keys(args).filter((name) => args[name] !== undefined);
  const declared = names.map((name) => `$${name}: ${types[name]}`).join(', ');
  const passed = names.map((name) => `${name}: $${name}`).join(', ');
  const call = names.length === 0 ? field : `${field}(${passed})`;
  const variables = Object.fromEntries(names.map((name) => [name, args[name]]));
  return { query: `query${declared ? `(${declared})` : ''} { ${call} { ${selection} } }`, variables };
}

/** Asserts `extensions.dataAge` is a whole number of seconds, 0 or more. */
export function expectDataAge(extensions: Record<string, unknown> | undefined): void {
  const age = extensions?.dataAge;
  expect(Number.isInteger(age), `dataAge ${String(age)}`).toBe(true);
  expect(age as number).toBeGreaterThanOrEqual(0);
}
