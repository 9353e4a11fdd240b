/**
 * What the graph should answer, computed from the mock upstream's own catalog (never hard-coded).
 */
import { productPicOf, type Catalog, type MockProduct, type MockSite } from '../../src/mock-upstream/index.js';

export const SITE_FIELDS = `
  id code name state enabled openTime closeTime address addressExt lat lng images siteType gradeType`;

export const PRODUCT_FIELDS = `id goodsCode skuCode productName ipId ipName costPrice guidePrice orderPic`;

/** The plain fields of a Site (those every site source carries), as the graph returns them. */
export function expectedSite(site: MockSite) {
  return {
    code: site.code,
    name: site.name,
    state: site.state,
    enabled: site.state === 1,
    openTime: site.openTime,
    closeTime: site.closeTime,
    address: site.address,
    addressExt: site.addressExt === '' ? null : site.addressExt,
    lat: Number(site.lat.toFixed(6)),
    lng: Number(site.lng.toFixed(6)),
    images: site.imgs,
  };
}

export function expectedProduct(product: MockProduct) {
  return {
    goodsCode: product.goodsCode,
    skuCode: product.skuCode,
    productName: product.productName,
    ipId: product.ipId,
    ipName: product.ipName,
    costPrice: product.costPrice,
    guidePrice: product.guidePrice,
    orderPic: product.orderPic,
  };
}

/** A site's points and lanes as `points { code name gradeType imei cargoLanes { … product { goodsCode } } }`. */
export function expectedPoints(catalog: Catalog, site: MockSite) {
  const products = new Map(catalog.products.map((product) => [product.goodsCode, product]));
  return site.points.map((point) => ({
    code: point.code,
    name: point.name,
    gradeType: point.gradeType,
    imei: point.imei,
    cargoLanes: point.cargolanes.map((lane) => {
      const product = lane.goodsCode === undefined ? undefined : products.get(lane.goodsCode);
      return {
        goodsCode: lane.goodsCode ?? null,
        productName: product?.productName ?? null,
        productPic: product ? productPicOf(product) : null,
        stock: lane.stock,
        guidePrice: product?.guidePrice ?? null,
        product: product ? { goodsCode: product.goodsCode } : null,
      };
    }),
  }));
}

export const POINT_FIELDS = `
  points { code name gradeType imei
    cargoLanes { goodsCode productName productPic stock guidePrice product { goodsCode } } }`;

export function cityOf(catalog: Catalog, site: MockSite) {
  const city = catalog.cities.find((candidate) => candidate.code === site.cityCode)!;
  return { code: city.code, name: city.name, cityId: city.id };
}
