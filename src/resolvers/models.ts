/**
 * What resolvers pass between each other where the upstream record alone is not enough
 * (codegen maps the GraphQL types onto these; see scripts/codegen.ts).
 */
import type { CityRecord, PointRecord, ProductRecord, SiteRecord } from '../upstream/records.js';

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
