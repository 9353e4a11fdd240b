/**
 * Snapshots of the whole catalog and the inverted indexes that answer what the upstream has no
 * operation for, in time proportional to the answer. A snapshot is built from one complete walk
 * and never changes (a refresh swaps in a new one), so a query never sees half a refresh.
 */
import KDBush from 'kdbush';
import { around, distance } from 'geokdbush';
import type { LaneRecord, PointRecord, ProductRecord, SiteRecord } from '../upstream/records.js';
import { INT_RANGE } from '../upstream/normalise.js';

/** One cargo lane, with where it is. */
export interface LaneRef {
  site: SiteRecord;
  point: PointRecord;
  lane: LaneRecord;
}

/** A site with the stock of one product across its lanes. */
interface SiteStockOf {
  site: SiteRecord;
  stock: number;
}

/** Every site with its points and lanes, as of one walk of list-with-points. */
export interface SitesCatalog {
  /** The enabled sites (`state` 1), in the upstream's order. */
  readonly enabledSites: readonly SiteRecord[];
  /** City code → its sites, in the upstream's order. */
  readonly sitesByCity: ReadonlyMap<string, readonly SiteRecord[]>;
  /** Goods code → the lanes holding it, in the upstream's order (site, point, lane). */
  readonly lanesByGoodsCode: ReadonlyMap<string, readonly LaneRef[]>;
  /** Goods code → the sites with a lane holding it, with their stock of it. */
  readonly sitesByGoodsCode: ReadonlyMap<string, readonly SiteStockOf[]>;
  /** Goods code → items in stock across every lane. */
  readonly stockByGoodsCode: ReadonlyMap<string, number>;
  /** The sites with coordinates, in kd-tree order (`located[id]`). */
  readonly located: readonly SiteRecord[];
  readonly tree: KDBush;
}

/** Every product, as of one walk of the product list. */
export interface ProductsCatalog {
  /** In the upstream's order. */
  readonly products: readonly ProductRecord[];
  /** Folded IP name → its products, in the upstream's order. */
  readonly productsByIp: ReadonlyMap<string, readonly ProductRecord[]>;
  /** Folded product names, by position in `products`. */
  readonly names: readonly string[];
  /** Each character and pair of characters of the folded names → positions of the products holding it, ascending. */
  readonly namePieces: ReadonlyMap<string, readonly number[]>;
}

/** A site and its distance from the point asked about. */
export interface SiteDistance {
  site: SiteRecord;
  distanceKm: number;
}

export function buildSitesCatalog(sites: readonly SiteRecord[]): SitesCatalog {
  const sitesByCity = new Map<string, SiteRecord[]>();
  const lanesByGoodsCode = new Map<string, LaneRef[]>();
  const sitesByGoodsCode = new Map<string, SiteStockOf[]>();
  const stockByGoodsCode = new Map<string, number>();
  for (const site of sites) {
    if (site.cityCode !== null) push(sitesByCity, site.cityCode, site);
    for (const point of site.points ?? []) {
      for (const lane of point.cargoLanes) {
        if (lane.goodsCode === null) continue;
        const stock = stockOf(lane);
        push(lanesByGoodsCode, lane.goodsCode, { site, point, lane });
        stockByGoodsCode.set(lane.goodsCode, addStock(stockByGoodsCode.get(lane.goodsCode) ?? 0, stock));
        const holders = sitesByGoodsCode.get(lane.goodsCode);
        const last = holders?.at(-1);
        if (last?.site === site) last.stock = addStock(last.stock, stock);
        else push(sitesByGoodsCode, lane.goodsCode, { site, stock });
      }
    }
  }
  const located = sites.filter(hasCoordinates);
  const tree = new KDBush(located.length);
  for (const site of located) tree.add(site.lng, site.lat);
  tree.finish();
  return { enabledSites: sites.filter(isEnabled), sitesByCity, lanesByGoodsCode, sitesByGoodsCode, stockByGoodsCode, located, tree };
}

export function buildProductsCatalog(products: readonly ProductRecord[]): ProductsCatalog {
  const productsByIp = new Map<string, ProductRecord[]>();
  const namePieces = new Map<string, number[]>();
  const names = products.map((product, position) => {
    if (product.ipName !== null) push(productsByIp, fold(product.ipName), product);
    const name = fold(product.productName ?? '');
    for (const piece of new Set([...name, ...piecesOf(name)])) push(namePieces, piece, position);
    return name;
  });
  return { products, productsByIp, names, namePieces };
}

/** What `sitesNear` asks for. */
export interface NearQuery {
  lat: number;
  lng: number;
  radiusKm: number;
  first: number;
  /** Whether a site qualifies (city, enabled, open, …), besides its distance. */
  accepts(site: SiteRecord): boolean;
  /** Only sites holding this product … */
  hasProduct?: string;
  /** … with some of it in stock. */
  inStockOnly: boolean;
}

/** Sites within the radius, nearest first. */
export function sitesNear(catalog: SitesCatalog, query: NearQuery): SiteDistance[] {
  const { lat, lng, radiusKm, first } = query;
  if (query.hasProduct !== undefined) {
    const holders = catalog.sitesByGoodsCode.get(query.hasProduct) ?? [];
    const found: SiteDistance[] = [];
    for (const { site, stock } of holders) {
      if ((query.inStockOnly && stock <= 0) || !hasCoordinates(site) || !query.accepts(site)) continue;
      const distanceKm = distance(lng, lat, site.lng, site.lat);
      if (distanceKm <= radiusKm) found.push({ site, distanceKm });
    }
    return found.sort((a, b) => a.distanceKm - b.distanceKm).slice(0, first);
  }
  if (catalog.located.length === 0) return [];
  // geokdbush's own distance may round the other way at the edge: search wider, then filter.
  const ids = around(catalog.tree, lng, lat, first, radiusKm * (1 + EDGE_MARGIN), (id) => query.accepts(catalog.located[id]!));
  return ids
    .map((id) => {
      const site = catalog.located[id] as SiteRecord & Located;
      return { site, distanceKm: distance(lng, lat, site.lng, site.lat) };
    })
    .filter(({ distanceKm }) => distanceKm <= radiusKm);
}

/** Relative widening of the kd-tree search (far above rounding error, far below a metre). */
const EDGE_MARGIN = 1e-9;

/** What `Product.availability` asks for. */
export interface AvailabilityQuery {
  cityCode?: string;
  near?: { lat: number; lng: number };
  radiusKm?: number;
  inStockOnly: boolean;
  /** Only lanes of enabled sites (`state` 1): a shopper cannot buy from a machine not in service. */
  enabledOnly: boolean;
  first: number;
}

/** A lane holding the product, with its stock and (given `near`) distance. */
export interface LaneAvailability extends LaneRef {
  stock: number;
  distanceKm: number | null;
}

/** The lanes holding `goodsCode`: nearest first given `near`, else in the upstream's order. */
export function availability(catalog: SitesCatalog, goodsCode: string, query: AvailabilityQuery): LaneAvailability[] {
  const found: LaneAvailability[] = [];
  for (const ref of catalog.lanesByGoodsCode.get(goodsCode) ?? []) {
    const stock = stockOf(ref.lane);
    if ((query.inStockOnly && stock <= 0) || (query.enabledOnly && !isEnabled(ref.site))) continue;
    if (query.cityCode !== undefined && ref.site.cityCode !== query.cityCode) continue;
    if (query.near === undefined) {
      found.push({ site: ref.site, point: ref.point, lane: ref.lane, stock, distanceKm: null });
      if (found.length === query.first) break;
      continue;
    }
    if (!hasCoordinates(ref.site)) continue;
    const distanceKm = distance(query.near.lng, query.near.lat, ref.site.lng, ref.site.lat);
    if (query.radiusKm === undefined || distanceKm <= query.radiusKm) {
      found.push({ site: ref.site, point: ref.point, lane: ref.lane, stock, distanceKm });
    }
  }
  // A stable sort: the lanes of one site keep their order.
  if (query.near !== undefined) found.sort((a, b) => a.distanceKm! - b.distanceKm!);
  return found.slice(0, query.first);
}

/** Products whose name contains `text` and whose IP is `ipName` (both folded), at most `first`. */
export function searchProducts(catalog: ProductsCatalog, text: string | undefined, ipName: string | undefined, first: number): ProductRecord[] {
  const ip = ipName === undefined ? undefined : fold(ipName);
  if (text === undefined) return (ip === undefined ? catalog.products : (catalog.productsByIp.get(ip) ?? [])).slice(0, first);
  const needle = fold(text);
  // A name holding the text holds each of its pieces: the rarest piece's list holds them all.
  let candidates: readonly number[] | undefined;
  for (const piece of piecesOf(needle)) {
    const holders = catalog.namePieces.get(piece) ?? [];
    if (candidates === undefined || holders.length < candidates.length) candidates = holders;
  }
  const found: ProductRecord[] = [];
  for (const position of candidates ?? []) {
    const product = catalog.products[position]!;
    if (!catalog.names[position]!.includes(needle)) continue;
    if (ip !== undefined && (product.ipName === null || fold(product.ipName) !== ip)) continue;
    found.push(product);
    if (found.length === first) break;
  }
  return found;
}

/** A site's lanes, empty lanes and stock. */
export function stockSummary(site: SiteRecord): { lanes: number; emptyLanes: number; totalStock: number } {
  let lanes = 0;
  let emptyLanes = 0;
  let totalStock = 0;
  for (const point of site.points ?? []) {
    for (const lane of point.cargoLanes) {
      const stock = lane.goodsCode === null ? 0 : stockOf(lane);
      lanes += 1;
      if (stock <= 0) emptyLanes += 1;
      totalStock = addStock(totalStock, stock);
    }
  }
  return { lanes, emptyLanes, totalStock };
}

type Located = { lat: number; lng: number };

function hasCoordinates(site: SiteRecord): site is SiteRecord & Located {
  return site.lat !== null && site.lng !== null;
}

/** Whether a site is enabled (`state` 1). */
export function isEnabled(site: SiteRecord): boolean {
  return site.state === 1;
}

// Private: a lane's stock; one unsaid or out of range (normalised to null) is none, everywhere.
function stockOf(lane: LaneRecord): number {
  return Math.max(0, lane.stock ?? 0);
}

// Private: a sum of stocks stops at the largest Int the schema can carry, rather than fail.
function addStock(sum: number, stock: number): number {
  return Math.min(INT_RANGE.max, sum + stock);
}

/**
 * A text as search compares it, ignoring case, accents (U+0300–U+036F; kana voicing marks stay)
 * and width: "POKÉMON" and "ＰＯＫＥＭＯＮ" are `pokemon`. It may be longer than the text.
 */
export function fold(text: string): string {
  return text.normalize('NFKD').replace(DIACRITICS, '').normalize('NFC').toLowerCase().trim();
}

const DIACRITICS = /[\u0300-\u036f]/g;

// Private: the pieces of a text looked up: its pairs of characters, or its one character.
function piecesOf(text: string): string[] {
  const characters = [...text];
  if (characters.length < 2) return characters;
  return characters.slice(1).map((character, i) => characters[i]! + character);
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}
