/**
 * Stored records → the shapes each operation puts on the wire, quirks included (plain sites carry
 * `gradeType`; list-with-points city and lane `guidePrice`; detail neither; coordinates strings).
 */
import { productPicOf, type Catalog, type MockCity, type MockLane, type MockPoint, type MockProduct, type MockSite } from './data.js';

/** What a view needs besides the record: lookups built once per request, and the number style. */
export interface ViewContext {
  numbersAsStrings: boolean;
  productsByCode: ReadonlyMap<string, MockProduct>;
  cityNamesByCode: ReadonlyMap<string, string>;
}

/** Which site-with-points variant to build. */
export type PointsVariant = 'list-with-points' | 'detail';

/** Lookups over the live catalog, built per request: tests mutate the catalog between requests. */
export function createViewContext(catalog: Catalog, numbersAsStrings: boolean): ViewContext {
  return {
    numbersAsStrings,
    productsByCode: new Map(catalog.products.map((p) => [p.goodsCode, p])),
    cityNamesByCode: new Map(catalog.cities.map((c) => [c.code, c.name])),
  };
}

// Private: a declared number, or its decimal string when the backend is loosely typed.
function num(ctx: ViewContext, value: number): number | string {
  return ctx.numbersAsStrings ? String(value) : value;
}

/** A city list item. */
export function cityView(ctx: ViewContext, city: MockCity): Record<string, unknown> {
  return { id: num(ctx, city.id), name: city.name, code: city.code };
}

/** A product list item or product detail. */
export function productView(ctx: ViewContext, product: MockProduct): Record<string, unknown> {
  return {
    ipId: num(ctx, product.ipId),
    ipName: product.ipName,
    productName: product.productName,
    skuCode: product.skuCode,
    goodsCode: product.goodsCode,
    costPrice: num(ctx, product.costPrice),
    guidePrice: num(ctx, product.guidePrice),
    orderPic: product.orderPic,
  };
}

// Private: the fields every site shape shares, in the upstream's order.
function siteHead(ctx: ViewContext, site: MockSite): Record<string, unknown> {
  return {
    code: site.code,
    name: site.name,
    state: num(ctx, site.state),
    openTime: site.openTime,
    closeTime: site.closeTime,
  };
}

// Private: a coordinate as a six-decimal string; anything else a test stored is served as it is.
function coordinate(value: unknown): unknown {
  return typeof value === 'number' ? value.toFixed(6) : value;
}

// Private: address, coordinates and images.
function siteTail(site: MockSite): Record<string, unknown> {
  return {
    address: site.address,
    addressExt: site.addressExt,
    lng: coordinate(site.lng),
    lat: coordinate(site.lat),
    imgs: site.imgs,
  };
}

/** An item of `/api/site/list` and `/api/sites/list`: no city, no points, but `gradeType`. */
export function plainSiteView(ctx: ViewContext, site: MockSite): Record<string, unknown> {
  return {
    ...siteHead(ctx, site),
    ...siteTail(site),
    siteType: site.siteType,
    gradeType: num(ctx, site.gradeType),
  };
}

/** An item of `/api/site/list-with-points`, or the result of `/api/site/detail`. */
export function siteWithPointsView(ctx: ViewContext, site: MockSite, variant: PointsVariant): Record<string, unknown> {
  const city = variant === 'list-with-points'
    ? { cityCode: site.cityCode, cityName: ctx.cityNamesByCode.get(site.cityCode) ?? '' }
    : {};
  return {
    ...siteHead(ctx, site),
    ...city,
    ...siteTail(site),
    siteType: site.siteType,
    points: site.points.map((point) => pointView(ctx, point, variant)),
  };
}

// Private: a point with its lanes.
function pointView(ctx: ViewContext, point: MockPoint, variant: PointsVariant): Record<string, unknown> {
  return {
    code: point.code,
    name: point.name,
    gradeType: num(ctx, point.gradeType),
    imei: point.imei,
    cargolanes: point.cargolanes.map((lane) => laneView(ctx, lane, variant)),
  };
}

// Private: an empty slot is served with `stock` only; a lane whose product vanished from the
// catalog keeps its `goodsCode` but nothing derived from the product.
function laneView(ctx: ViewContext, lane: MockLane, variant: PointsVariant): Record<string, unknown> {
  if (lane.goodsCode === undefined) return { stock: num(ctx, lane.stock) };
  const product = ctx.productsByCode.get(lane.goodsCode);
  if (!product) return { goodsCode: lane.goodsCode, stock: num(ctx, lane.stock) };
  const view: Record<string, unknown> = {
    goodsCode: lane.goodsCode,
    productName: product.productName,
    productPic: productPicOf(product),
    stock: num(ctx, lane.stock),
  };
  if (variant === 'list-with-points') view.guidePrice = num(ctx, product.guidePrice);
  return view;
}
