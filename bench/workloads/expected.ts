/**
 * The `data` a correct answer to a serving scenario's request must carry, built by the mock's
 * process from the very catalog it serves (`../processes/mock-process.ts`), never from any
 * peer's answer: a peer that mixes up keys (Tailcall's colliding call hashes did) or drops a lane
 * is caught by `util.isDeepStrictEqual` against this.
 *
 * It follows the contract (`schema.graphql`), not the gateway's code: a lane's `guidePrice` is
 * its product's (site detail carries none), an empty slot has no price and no product, a missing
 * key answers null.
 */
import { distance } from 'geokdbush';
import type { Catalog, MockLane, MockProduct, MockSite } from '../../src/mock-upstream/index.js';
import type { ServingKey, ServingScenario } from './serving.js';

/**
 * Lookups over the catalog, built once: the catalog does not change while answers are checked
 * (the live scenario, which changes stock, runs after every scenario that checks them).
 */
export interface ExpectedContext {
  catalog: Catalog;
  productsByCode: ReadonlyMap<string, MockProduct>;
  sitesByCode: ReadonlyMap<string, MockSite>;
}

/** The lookups for `catalog`. */
export function expectedContext(catalog: Catalog): ExpectedContext {
  return {
    catalog,
    productsByCode: new Map(catalog.products.map((p) => [p.goodsCode, p])),
    sitesByCode: new Map(catalog.sites.map((s) => [s.code, s])),
  };
}

/** The expected `data` for each of `keys` of `scenario`, in order. */
export function expectedData(ctx: ExpectedContext, scenario: ServingScenario, keys: readonly ServingKey[]): unknown[] {
  return keys.map((key) => expectedOne(ctx, scenario, key));
}

// Private: one key's `data`.
function expectedOne(ctx: ExpectedContext, scenario: ServingScenario, key: ServingKey): unknown {
  switch (scenario) {
    case 'small': {
      const product = ctx.productsByCode.get((key as ServingKey<'small'>).goodsCode);
      return { product: product ? { productName: product.productName, ipName: product.ipName, guidePrice: product.guidePrice } : null };
    }
    case 'site': {
      const site = ctx.sitesByCode.get((key as ServingKey<'site'>).code);
      return { site: site ? siteWithLanes(ctx, site) : null };
    }
    case 'cities': {
      const { page, pageSize } = key as ServingKey<'cities'>;
      return { cities: { items: pageOf(ctx.catalog.cities, page, pageSize).map(({ code, name }) => ({ code, name })) } };
    }
    case 'deep': {
      const { page, pageSize } = key as ServingKey<'deep'>;
      return { sites: { items: pageOf(ctx.catalog.sites, page, pageSize).map((site) => siteWithLanes(ctx, site)) } };
    }
    case 'sitesNear': return { sitesNear: sitesNear(ctx, key as ServingKey<'sitesNear'>) };
  }
}

// Private: a site with its points, lanes and lane products, as the site and deep queries select them.
function siteWithLanes(ctx: ExpectedContext, site: MockSite): unknown {
  return {
    code: site.code,
    name: site.name,
    points: site.points.map((point) => ({ code: point.code, name: point.name, cargoLanes: point.cargolanes.map((lane) => laneOf(ctx, lane)) })),
  };
}

// Private: an empty slot (or one whose product is gone) has neither price nor product.
function laneOf(ctx: ExpectedContext, lane: MockLane): unknown {
  const product = lane.goodsCode === undefined ? undefined : ctx.productsByCode.get(lane.goodsCode);
  if (!product) return { stock: lane.stock, guidePrice: null, product: null };
  const { goodsCode, productName, ipName, guidePrice } = product;
  return { stock: lane.stock, guidePrice, product: { goodsCode, productName, ipName, guidePrice } };
}

// Private: page `page` (from 1) of `items`.
function pageOf<T>(items: readonly T[], page: number, pageSize: number): T[] {
  return items.slice((page - 1) * pageSize, page * pageSize);
}

// Private: enabled sites within the radius, nearest first, the first `first`; with `hasProduct`
// only sites with some of it in stock (the contract's defaults: enabledOnly, inStockOnly).
// Coordinates are what the upstream serves (six decimals); the distance is geokdbush's
// haversine, so that a correct answer matches to the last bit rather than within a tolerance.
function sitesNear(ctx: ExpectedContext, args: ServingKey<'sitesNear'>): unknown[] {
  const onWire = (x: number): number => Number(x.toFixed(6));
  const stocks = (site: MockSite): boolean => args.hasProduct === undefined
    || site.points.some((point) => point.cargolanes.some((lane) => lane.goodsCode === args.hasProduct && lane.stock > 0));
  return ctx.catalog.sites
    .filter((site) => site.state === 1 && stocks(site))
    .map((site) => ({ site, distanceKm: distance(args.lng, args.lat, onWire(site.lng), onWire(site.lat)) }))
    .filter((found) => found.distanceKm <= args.radiusKm)
    .sort((a, b) => a.distanceKm - b.distanceKm)
    .slice(0, args.first)
    .map(({ site, distanceKm }) => ({
      distanceKm,
      site: { code: site.code, name: site.name, address: site.address, openTime: site.openTime, closeTime: site.closeTime },
    }));
}
