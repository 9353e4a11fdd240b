/** What resolvers pass where the upstream record alone is not enough (codegen maps types onto these). */
import type { CityRecord, LaneRecord, PointRecord, ProductRecord, SiteRecord } from '../upstream/records.js';

/** A city as far as it is known: sites give no numeric id, which `City.cityId` loads when asked. */
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
