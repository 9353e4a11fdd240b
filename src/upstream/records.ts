/** The upstream's data after normalisation (normalise.ts): consistent types whatever the wire carried. */

/** Fields whose upstream value was out of the schema's range, now `null`; absent when none. */
export interface InvalidFields {
  invalid?: string[];
}

export interface CityRecord {
  /** The upstream's numeric city id. */
  id: number;
  code: string;
  name: string;
}

export interface LaneRecord extends InvalidFields {
  goodsCode: string | null;
  productName: string | null;
  productPic: string | null;
  /** Items in the lane, 0 to 2^31 − 1; `null` when unknown or out of that range. */
  stock: number | null;
  /** Retail price in fen; only list-with-points reports it. */
  guidePrice: number | null;
}

export interface PointRecord extends InvalidFields {
  code: string;
  name: string;
  gradeType: number | null;
  imei: string | null;
  cargoLanes: LaneRecord[];
}

export interface SiteRecord extends InvalidFields {
  code: string;
  name: string;
  /** 1 = enabled, 0 = not enabled. */
  state: number;
  openTime: string | null;
  closeTime: string | null;
  address: string | null;
  addressExt: string | null;
  lat: number | null;
  lng: number | null;
  images: string[];
  siteType: string | null;
  gradeType: number | null;
  /** Only list-with-points reports the city. */
  cityCode: string | null;
  cityName: string | null;
  /** `null` when the source (a plain site list) carries no points. */
  points: PointRecord[] | null;
}

export interface ProductRecord extends InvalidFields {
  goodsCode: string;
  skuCode: string | null;
  productName: string | null;
  ipId: number | null;
  ipName: string | null;
  /** In fen. */
  costPrice: number | null;
  /** In fen. */
  guidePrice: number | null;
  orderPic: string | null;
}

/** A page of records. */
export interface PageResult<T> {
  items: T[];
  /** Records across all pages. */
  total: number;
}

/** A list page as sent: `null` marks an unusable item, kept so positions stay right when pages are joined. */
export type UpstreamPage<T> = PageResult<T | null>;
