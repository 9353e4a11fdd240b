/**
 * The catalog-index queries the bench sends, with arguments drawn at random for every request,
 * so that no two requests are alike (the response cache never stores index answers anyway, but
 * the index then works on a new point or product each time, as for real users):
 *
 * - `sitesNear`: near a random site (within about 2 km of it), radius 5–10 km, first 20;
 *   3 in 10 with `hasProduct`, a product the site has in stock, so that the answer is not empty.
 * - `Product.availability`: a random product, `near` a random site as above, first 20; half
 *   with a radius of 5–10 km, half without (every lane holding the product, nearest first).
 *
 * The same argument draws serve the gateway (as GraphQL bodies) and the in-process probe.
 */
import type { GraphQLRequest } from './queries.js';

/** A site as the index scenario sees it: a place to search near, and products found there. */
export interface LocatedSite {
  lat: number;
  lng: number;
  /** Distinct goods codes of the site's lanes with stock above 0. */
  stockedGoodsCodes: string[];
}

/** What arguments are drawn from (the mock announces them, `../processes/mock.ts`). */
export interface IndexKeys {
  locatedSites: readonly LocatedSite[];
  goodsCodes: readonly string[];
}

/** Results asked for by every index query. */
export const INDEX_FIRST = 20;
/** Share of `sitesNear` queries with `hasProduct`. */
const HAS_PRODUCT_SHARE = 0.3;
/** Share of availability queries with a radius. */
const RADIUS_SHARE = 0.5;
/** How far from a site a point is drawn, at most, in degrees (0.02° is about 2 km). */
const JITTER_DEGREES = 0.02;

/** Operation names: the gateway's log lines are told apart by them. */
export const SITES_NEAR_OPERATION = 'SitesNear';
export const AVAILABILITY_OPERATION = 'Availability';
export const INDEX_BUILD_OPERATION = 'IndexBuild';

const SITES_NEAR = `query ${SITES_NEAR_OPERATION}($lat: Float!, $lng: Float!, $radiusKm: Float!, $first: Int!, $hasProduct: String) {
  sitesNear(lat: $lat, lng: $lng, radiusKm: $radiusKm, first: $first, hasProduct: $hasProduct) {
    distanceKm site { code name address openTime closeTime }
  }
}`;

const AVAILABILITY = `query ${AVAILABILITY_OPERATION}($goodsCode: String!, $near: GeoInput!, $radiusKm: Float, $first: Int!) {
  product(goodsCode: $goodsCode) {
    goodsCode productName
    availability(near: $near, radiusKm: $radiusKm, first: $first) { stock distanceKm site { code name } point { code } }
  }
}`;

// Both parts of the index: the sites (sitesNear) and the products (searchProducts).
const INDEX_BUILD = `query ${INDEX_BUILD_OPERATION}($lat: Float!, $lng: Float!) {
  sitesNear(lat: $lat, lng: $lng, radiusKm: 10, first: ${INDEX_FIRST}) { distanceKm site { code } }
  searchProducts(first: 1) { goodsCode }
}`;

/** A point in decimal degrees. */
export interface Geo {
  lat: number;
  lng: number;
}

/** Arguments of one `sitesNear` query. */
export interface NearArgs extends Geo {
  radiusKm: number;
  first: number;
  hasProduct?: string;
}

/** Arguments of one `Product.availability` query. */
export interface AvailabilityArgs {
  goodsCode: string;
  near: Geo;
  radiusKm?: number;
  first: number;
}

const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)]!;
const between = (low: number, high: number): number => low + Math.random() * (high - low);

/** A random `sitesNear` query's arguments. */
export function randomNearArgs(keys: IndexKeys): NearArgs {
  const site = pick(keys.locatedSites);
  const withProduct = Math.random() < HAS_PRODUCT_SHARE && site.stockedGoodsCodes.length > 0;
  return {
    ...near(site), radiusKm: between(5, 10), first: INDEX_FIRST,
    ...(withProduct ? { hasProduct: pick(site.stockedGoodsCodes) } : {}),
  };
}

/** A random `Product.availability` query's arguments. */
export function randomAvailabilityArgs(keys: IndexKeys): AvailabilityArgs {
  return {
    goodsCode: pick(keys.goodsCodes), near: near(pick(keys.locatedSites)), first: INDEX_FIRST,
    ...(Math.random() < RADIUS_SHARE ? { radiusKm: between(5, 10) } : {}),
  };
}

/** A random `sitesNear` request. */
export function sitesNearRequest(keys: IndexKeys): GraphQLRequest {
  return { query: SITES_NEAR, variables: { ...randomNearArgs(keys) } };
}

/** A random `Product.availability` request. */
export function availabilityRequest(keys: IndexKeys): GraphQLRequest {
  return { query: AVAILABILITY, variables: { ...randomAvailabilityArgs(keys) } };
}

/** The first index query of a cold gateway: it builds both parts of the index. */
export function indexBuildRequest(keys: IndexKeys): GraphQLRequest {
  return { query: INDEX_BUILD, variables: { ...near(pick(keys.locatedSites)) } };
}

// Private: a point within `JITTER_DEGREES` of `site`, rounded as a phone would send it.
function near(site: Geo): Geo {
  const round6 = (x: number): number => Math.round(x * 1e6) / 1e6;
  return { lat: round6(site.lat + between(-JITTER_DEGREES, JITTER_DEGREES)), lng: round6(site.lng + between(-JITTER_DEGREES, JITTER_DEGREES)) };
}
