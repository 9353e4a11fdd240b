/**
 * What resolvers pass between each other where the upstream record alone is not enough
 * (codegen maps the GraphQL types onto these; see scripts/codegen.ts).
 */
import type { CityRecord, LaneRecord, PointRecord, ProductRecord, SiteRecord } from '../upstream/records.js';

/**
 * A city as far as it is known: sites report their city's code and name but not its numeric id,
 * which only the city list has; `City.cityId` loads it when (and only when) it is asked for.
 */
export type CityModel = Pick<CityRecord, 'code' | 'name'> & { id?: number };

/** A point knows its site: `Point.site` and the point's global id need it. */
export interface PointModel extends PointRecord {
  site: SiteRecord;
}

/** A page as the client asked for it. */
export interface PageModel<T> {
  items: T[];
  total: number;
  page: number;
  pageSize: number;
}

export type CityPageModel = PageModel<CityModel>;
export type SitePageModel = PageModel<SiteRecord>;
export type ProductPageModel = PageModel<ProductRecord>;

/** A lane holding a product, as `Availability` answers it. */
export interface AvailabilityModel {
  site: SiteRecord;
  point: PointModel;
  lane: LaneRecord;
  stock: number;
  distanceKm: number | null;
}

/** `Subscription.productStock`'s event: the product itself is loaded when asked for. */
export interface ProductStockModel {
  goodsCode: string;
  totalStock: number;
  availability: AvailabilityModel[];
  updatedAt: string;
}

/** `Subscription.stockAlerts`'s event. */
export interface StockAlertModel {
  kind: 'LOW' | 'RESTOCKED';
  site: SiteRecord;
  point: PointModel;
  lane: LaneRecord;
  laneIndex: number;
  stock: number;
  previousStock: number;
  threshold: number;
  at: string;
}
