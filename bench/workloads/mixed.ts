/**
 * The mixed workload: the contract's queries in the proportions a vending app's screens would
 * send them, with arguments drawn uniformly at random (site list pages, deep pages of the first
 * sites, site details, products by goods code, product pages, cities). Each entry has a Mesh
 * spelling that fetches the same data from Mesh's REST-shaped schema.
 */
import type { Flavour, GraphQLRequest } from './queries.js';

/** The catalog keys arguments are drawn from. */
export interface MixKeys {
  siteCodes: string[];
  goodsCodes: string[];
  cityCodes: string[];
}

interface MixEntry {
  name: string;
  /** Share of requests, in percent. */
  weight: number;
  build(flavour: Flavour, keys: MixKeys): GraphQLRequest;
}

const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)]!;
const between = (low: number, high: number): number => low + Math.floor(Math.random() * (high - low + 1));

/** The mix; weights add up to 100. */
export const MIX: readonly MixEntry[] = [
  {
    name: 'site list page (20 of 2,000 sites, random page)',
    weight: 20,
    build: (flavour, keys) => ({
      query: flavour === 'gateway'
        ? 'query($p: Int!) { sites(page: $p, pageSize: 20) { total hasNextPage items { code name enabled openTime closeTime address } } }'
        : 'query($p: Int!) { siteList(page: $p, pageSize: 20) { result { total items { code name state openTime closeTime address } } } }',
      variables: { p: between(1, Math.ceil(keys.siteCodes.length / 20)) },
    }),
  },
  {
    name: 'deep site page (10 sites with lanes and products, one of the first 10 pages)',
    weight: 15,
    build: (flavour) => ({
      query: flavour === 'gateway'
        ? 'query($p: Int!) { sites(page: $p, pageSize: 10) { items { code name city { name } points { name cargoLanes { stock guidePrice product { productName ipName guidePrice } } } } } }'
        : 'query($p: Int!) { siteListWithPoints(page: $p, pageSize: 10) { result { items { code name cityName points { name cargolanes { stock guidePrice product { productName ipName guidePrice } } } } } } }',
      variables: { p: between(1, 10) },
    }),
  },
  {
    name: 'site detail (random site, lanes with product)',
    weight: 25,
    build: (flavour, keys) => ({
      query: flavour === 'gateway'
        ? 'query($c: String!) { site(code: $c) { name address city { name } points { code imei cargoLanes { stock guidePrice product { productName } } } } }'
        : 'query($c: String!) { siteDetail(siteCode: $c) { result { name address points { code imei cargolanes { stock product { productName guidePrice } } } } } }',
      variables: { c: pick(keys.siteCodes) },
    }),
  },
  {
    name: 'product by goods code (random of 1,000)',
    weight: 20,
    build: (flavour, keys) => ({
      query: flavour === 'gateway'
        ? 'query($g: String!) { product(goodsCode: $g) { productName ipName guidePrice orderPic } }'
        : 'query($g: String!) { productDetail(goodsCode: $g) { result { productName ipName guidePrice orderPic } } }',
      variables: { g: pick(keys.goodsCodes) },
    }),
  },
  {
    name: 'product page (20 of 1,000, random page)',
    weight: 10,
    build: (flavour, keys) => ({
      query: flavour === 'gateway'
        ? 'query($p: Int!) { products(page: $p, pageSize: 20) { total items { goodsCode productName guidePrice } } }'
        : 'query($p: Int!) { productList(page: $p, pageSize: 20) { result { total items { goodsCode productName guidePrice } } } }',
      variables: { p: between(1, Math.ceil(keys.goodsCodes.length / 20)) },
    }),
  },
  {
    // Mesh has no city by code (the upstream has none): its client lists the cities and picks one.
    name: 'city by code (random), or the city list on Mesh',
    weight: 10,
    build: (flavour, keys) => (flavour === 'gateway'
      ? { query: 'query($c: String!) { city(code: $c) { cityId code name } }', variables: { c: pick(keys.cityCodes) } }
      : { query: '{ cityList(page: 1, pageSize: 100) { result { items { id code name } } } }' }),
  },
];

/** A random request of the mix, as a JSON body. */
export function randomMixedBody(flavour: Flavour, keys: MixKeys): string {
  let roll = Math.random() * 100;
  for (const entry of MIX) {
    roll -= entry.weight;
    if (roll < 0) return JSON.stringify(entry.build(flavour, keys));
  }
  return JSON.stringify(MIX[MIX.length - 1]!.build(flavour, keys));
}
