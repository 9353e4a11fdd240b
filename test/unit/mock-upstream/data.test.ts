import { describe, expect, it } from 'vitest';
import { generateCatalog, productPicOf } from '../../../src/mock-upstream/index.js';

describe('generateCatalog', () => {
  it('generates the identical catalog from the same seed', () => {
    expect(generateCatalog({ seed: 42 })).toEqual(generateCatalog({ seed: 42 }));
  });

  it('generates a different catalog from a different seed', () => {
    const a = generateCatalog({ seed: 1 });
    const b = generateCatalog({ seed: 2 });
    expect(a.sites.map((s) => s.name)).not.toEqual(b.sites.map((s) => s.name));
    expect(a.products.map((p) => p.guidePrice)).not.toEqual(b.products.map((p) => p.guidePrice));
  });

  it('uses the documented default sizes', () => {
    const catalog = generateCatalog();
    expect(catalog.cities).toHaveLength(12);
    expect(catalog.sites).toHaveLength(60);
    expect(catalog.products).toHaveLength(80);
    expect(catalog.sites.every((s) => s.points.length === 3)).toBe(true);
    expect(catalog.sites.every((s) => s.points.every((p) => p.cargolanes.length === 6))).toBe(true);
  });

  it('generates benchmark scale: 30 cities, 2,000 sites, 64,000 lanes and 1,000 products', () => {
    const catalog = generateCatalog({ cities: 30, sites: 2000, pointsPerSite: 4, lanesPerPoint: 8, products: 1000 });
    const lanes = catalog.sites.flatMap((s) => s.points.flatMap((p) => p.cargolanes));
    expect(catalog.cities).toHaveLength(30);
    expect(catalog.sites).toHaveLength(2000);
    expect(lanes).toHaveLength(64_000);
    expect(catalog.products).toHaveLength(1000);
  });

  it('gives every site, point, product and city a unique code', () => {
    const catalog = generateCatalog({ cities: 40, sites: 300, products: 200 });
    const unique = (codes: string[]): number => new Set(codes).size;
    expect(unique(catalog.cities.map((c) => c.code))).toBe(40);
    expect(unique(catalog.sites.map((s) => s.code))).toBe(300);
    expect(unique(catalog.sites.flatMap((s) => s.points.map((p) => p.code)))).toBe(900);
    expect(unique(catalog.products.map((p) => p.goodsCode))).toBe(200);
  });

  it('starts with real Chinese cities and names the rest by number', () => {
    const { cities } = generateCatalog({ cities: 32 });
    expect(cities[0]).toEqual({ id: 310100, name: '上海', code: 'SH' });
    expect(cities.map((c) => c.name)).toEqual(expect.arrayContaining(['北京', '广州', '深圳', '杭州', '成都']));
    expect(cities[30]?.name).toBe('城市31');
  });

  it('generates realistic product values with prices in fen', () => {
    for (const product of generateCatalog({ products: 500 }).products) {
      expect(product.goodsCode).toMatch(/^G\d{5}$/);
      expect(product.skuCode).toMatch(/^SKU\d+$/);
      expect(Number.isInteger(product.guidePrice)).toBe(true);
      expect(product.guidePrice).toBeGreaterThanOrEqual(990);
      expect(product.guidePrice).toBeLessThanOrEqual(12900);
      expect(Number.isInteger(product.costPrice)).toBe(true);
      expect(product.costPrice).toBeLessThan(product.guidePrice);
      expect(product.orderPic).toMatch(/^https:\/\/img\.example\.com\//);
      expect(product.ipName.length).toBeGreaterThan(0);
      expect(Number.isInteger(product.ipId)).toBe(true);
    }
  });

  it('generates realistic site and point values', () => {
    const catalog = generateCatalog({ sites: 400 });
    const cityCodes = new Set(catalog.cities.map((c) => c.code));
    for (const site of catalog.sites) {
      expect(site.code).toMatch(/^S\d{6}$/);
      expect([0, 1]).toContain(site.state);
      expect(site.openTime).toMatch(/^\d{2}:\d{2}:\d{2}$/);
      expect(site.closeTime).toMatch(/^\d{2}:\d{2}:\d{2}$/);
      expect(cityCodes.has(site.cityCode)).toBe(true);
      expect(site.lng).toBeGreaterThan(73);
      expect(site.lng).toBeLessThan(135);
      expect(site.lat).toBeGreaterThan(18);
      expect(site.lat).toBeLessThan(54);
      for (const point of site.points) {
        expect(point.code).toMatch(new RegExp(`^P${site.code.slice(1)}\\d{2}$`));
        expect(point.imei).toMatch(/^\d{15}$/);
        expect([1, 2]).toContain(point.gradeType);
      }
    }
  });

  it('includes the rough edges: disabled sites, empty addressExt and empty imgs', () => {
    const { sites } = generateCatalog({ sites: 1000 });
    const share = (count: number): number => count / sites.length;
    expect(share(sites.filter((s) => s.state === 0).length)).toBeGreaterThan(0.05);
    expect(share(sites.filter((s) => s.state === 0).length)).toBeLessThan(0.15);
    expect(share(sites.filter((s) => s.addressExt === '').length)).toBeGreaterThan(0.2);
    expect(share(sites.filter((s) => s.addressExt === '').length)).toBeLessThan(0.4);
    expect(share(sites.filter((s) => s.imgs.length === 0).length)).toBeGreaterThan(0.1);
    expect(share(sites.filter((s) => s.imgs.length === 0).length)).toBeLessThan(0.3);
  });

  it('leaves about 3% of lanes empty and points every other lane at an existing product', () => {
    const catalog = generateCatalog({ sites: 500 });
    const goodsCodes = new Set(catalog.products.map((p) => p.goodsCode));
    const lanes = catalog.sites.flatMap((s) => s.points.flatMap((p) => p.cargolanes));
    const empty = lanes.filter((l) => l.goodsCode === undefined);
    expect(empty.length / lanes.length).toBeGreaterThan(0.01);
    expect(empty.length / lanes.length).toBeLessThan(0.06);
    expect(empty.every((l) => l.stock === 0)).toBe(true);
    for (const lane of lanes.filter((l) => l.goodsCode !== undefined)) {
      expect(goodsCodes.has(lane.goodsCode ?? '')).toBe(true);
      expect(lane.stock).toBeGreaterThanOrEqual(0);
      expect(lane.stock).toBeLessThanOrEqual(20);
    }
  });

  it('derives a lane picture from the product image that differs from it', () => {
    const product = generateCatalog().products[0];
    if (!product) throw new Error('no product');
    expect(productPicOf(product)).toContain(product.orderPic);
    expect(productPicOf(product)).not.toBe(product.orderPic);
  });

  it('rejects a size that is not a whole number, echoing it', () => {
    expect(() => generateCatalog({ sites: -1 })).toThrow(/sites must be an integer >= 0, but got: -1/);
    expect(() => generateCatalog({ products: 0 })).toThrow(/products/);
  });
});
