/**
 * The mock upstream's data as stored, and a seeded generator. Stored shapes are not wire shapes:
 * views.ts derives each answer, so a lane's product name, picture and price come from the product.
 */
import { createRandom, type Random } from './random.js';
import {
  CITY_SEEDS, CLOSE_TIMES, DISTRICTS, FLOORS, IPS, OPEN_TIMES, PRODUCT_KINDS, ROADS, SITE_TYPES,
  SPOTS, VENUES, type CitySeed,
} from './names.js';

/** A city: `code` is the short letter code sites refer to (`SH`), `id` the numeric identifier. */
export interface MockCity {
  id: number;
  name: string;
  code: string;
}

/** A product. Prices are integers in fen (1/100 yuan); `costPrice` < `guidePrice`. */
export interface MockProduct {
  ipId: number;
  ipName: string;
  productName: string;
  skuCode: string;
  goodsCode: string;
  costPrice: number;
  guidePrice: number;
  orderPic: string;
}

/** A cargo lane. No `goodsCode` means an empty slot (served with only `stock`, which is 0). */
export interface MockLane {
  goodsCode?: string;
  stock: number;
}

/** A point (a machine position inside a site). `gradeType`: 1 or 2; `imei`: 15 digits. */
export interface MockPoint {
  code: string;
  name: string;
  gradeType: number;
  imei: string;
  cargolanes: MockLane[];
}

/** A site (a venue). `state`: 1 enabled, 0 not; times `HH:MM:SS`; `cityCode` is a `MockCity.code`. */
export interface MockSite {
  code: string;
  name: string;
  state: number;
  openTime: string;
  closeTime: string;
  cityCode: string;
  address: string;
  addressExt: string;
  lng: number;
  lat: number;
  imgs: string[];
  siteType: string;
  gradeType: number;
  points: MockPoint[];
}

/** The live data a mock upstream serves; tests may read and mutate it between requests. */
export interface Catalog {
  cities: MockCity[];
  sites: MockSite[];
  products: MockProduct[];
}

/** Size and seed of a generated catalog. Benchmark scale: 30 cities, 2,000 × 4 × 8, 1,000. */
export interface CatalogOptions {
  /** PRNG seed; the same seed and sizes give the identical catalog. Default 1. */
  seed?: number;
  /** Number of cities; the first 30 are real ones, later ones are named `城市31`… Default 12. */
  cities?: number;
  /** Number of sites, spread over the cities at random. Default 60. */
  sites?: number;
  /** Points (machines) per site. Default 3. */
  pointsPerSite?: number;
  /** Cargo lanes per point; about 3% are empty slots. Default 6. */
  lanesPerPoint?: number;
  /** Number of products; every non-empty lane holds one of them. Default 80. */
  products?: number;
}

/** Where image URLs live; never fetched, so the host only has to look right. */
const IMG_HOST = 'https://img.example.com';

/** The `productPic` lanes serve: a thumbnail of `orderPic`, so a client mixing the two up is caught. */
export function productPicOf(product: MockProduct): string {
  return `${product.orderPic}?x-oss-process=image/resize,w_240`;
}

/** A deterministic catalog: the same options give the same data; changing `sites` keeps the products. */
export function generateCatalog(options: CatalogOptions = {}): Catalog {
  const sizes = {
    seed: options.seed ?? 1,
    cities: checkCount('cities', options.cities ?? 12, 1),
    sites: checkCount('sites', options.sites ?? 60, 0),
    pointsPerSite: checkCount('pointsPerSite', options.pointsPerSite ?? 3, 0),
    lanesPerPoint: checkCount('lanesPerPoint', options.lanesPerPoint ?? 6, 0),
    products: checkCount('products', options.products ?? 80, 1),
  };
  const random = createRandom(sizes.seed);
  const seeds = Array.from({ length: sizes.cities }, (_, i) => citySeed(i, random));
  const products = Array.from({ length: sizes.products }, (_, i) => makeProduct(i, random));
  const sites = Array.from({ length: sizes.sites }, (_, i) =>
    makeSite(i, random.pick(seeds), random, sizes.pointsPerSite, sizes.lanesPerPoint, products));
  return { cities: seeds.map(({ id, name, code }) => ({ id, name, code })), sites, products };
}

// Private: a size must be a whole number, at least `min`.
function checkCount(name: string, value: number, min: number): number {
  if (!Number.isInteger(value) || value < min) {
    throw new RangeError(`generateCatalog: ${name} must be an integer >= ${min}, but got: ${value}`);
  }
  return value;
}

// Private: real cities first, then generated ones somewhere inside China.
function citySeed(index: number, random: Random): CitySeed {
  const real = CITY_SEEDS[index];
  if (real) return real;
  const n = index + 1;
  return { id: 900000 + n, code: `C${n}`, name: `城市${n}`, lng: random.int(100, 121), lat: random.int(23, 42) };
}

// Private: pad a number with leading zeros.
function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}

// Private: prices end in 90 fen (990 … 12,890), like real shelf prices; cost is 35–70 % of it.
function makeProduct(index: number, random: Random): MockProduct {
  const ip = random.pick(IPS);
  const goodsCode = `G${pad(index + 1, 5)}`;
  const guidePrice = random.int(10, 129) * 100 - 10;
  return {
    ipId: ip.ipId,
    ipName: ip.ipName,
    productName: `${ip.ipName} 第${random.int(1, 12)}弹 ${random.pick(PRODUCT_KINDS)}`,
    skuCode: `SKU${ip.ipId}${pad(index + 1, 5)}`,
    goodsCode,
    costPrice: Math.floor(guidePrice * (0.35 + random.next() * 0.35)),
    guidePrice,
    orderPic: `${IMG_HOST}/products/${goodsCode}.jpg`,
  };
}

// Private: one site with its points; ~10% disabled, ~30% without addressExt, ~20% without images.
function makeSite(
  index: number, city: CitySeed, random: Random,
  pointsPerSite: number, lanesPerPoint: number, products: readonly MockProduct[],
): MockSite {
  const siteNumber = pad(index + 1, 6);
  const code = `S${siteNumber}`;
  const venue = random.pick(VENUES);
  const floor = random.pick(FLOORS);
  const gradeType = random.chance(0.7) ? 1 : 2;
  const imageCount = random.chance(0.2) ? 0 : random.int(1, 3);
  return {
    code,
    name: `${city.name}${venue} ${floor}`,
    state: random.chance(0.1) ? 0 : 1,
    openTime: random.pick(OPEN_TIMES),
    closeTime: random.pick(CLOSE_TIMES),
    cityCode: city.code,
    address: `${city.name}市${random.pick(DISTRICTS)}${random.pick(ROADS)}${random.int(1, 999)}号${venue}`,
    addressExt: random.chance(0.3) ? '' : `${floor} ${random.pick(SPOTS)}`,
    lng: round6(city.lng + (random.next() - 0.5) * 0.3),
    lat: round6(city.lat + (random.next() - 0.5) * 0.3),
    imgs: Array.from({ length: imageCount }, (_, i) => `${IMG_HOST}/sites/${code}/${i + 1}.jpg`),
    siteType: random.pick(SITE_TYPES),
    gradeType,
    points: Array.from({ length: pointsPerSite }, (_, j) =>
      makePoint(`P${siteNumber}${pad(j + 1, 2)}`, j, gradeType, random, lanesPerPoint, products)),
  };
}

// Private: most points share their site's order system; IMEIs are 15 digits starting with 86.
function makePoint(
  code: string, index: number, siteGradeType: number, random: Random,
  lanesPerPoint: number, products: readonly MockProduct[],
): MockPoint {
  return {
    code,
    name: `${index + 1}号机 ${random.pick(SPOTS)}`,
    gradeType: random.chance(0.9) ? siteGradeType : 3 - siteGradeType,
    imei: `86${random.digits(13)}`,
    cargolanes: Array.from({ length: lanesPerPoint }, () => makeLane(random, products)),
  };
}

// Private: ~3% of lanes are empty slots, with no product and no stock.
function makeLane(random: Random, products: readonly MockProduct[]): MockLane {
  if (random.chance(0.03)) return { stock: 0 };
  return { goodsCode: random.pick(products).goodsCode, stock: random.int(0, 20) };
}

// Private: coordinates carry six decimals on the wire, so store them that way.
function round6(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}
