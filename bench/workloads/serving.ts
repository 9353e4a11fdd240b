/**
 * The serving scenarios' requests: each names a key, the variables it stands for,
 * and the gateway's spelling of the query. The same key and variables go to every peer (each
 * spells the query for its own schema, see `../peers/tailcall-adapter.ts`), and to the mock, which
 * answers with the `data` a correct answer must carry (`expected.ts`).
 *
 * - `small`: one product by goods code;
 * - `site`: one site with its points, lanes and each lane's product;
 * - `cities`: the same cities page every request;
 * - `deep`: the 50-site deep page (`COLD_SITES`) with points, lanes and products, the same every request;
 * - `sitesNear`: the catalog index's query at random coordinates (`catalog-index.ts`).
 */
import { CITIES_PAGE, COLD_SITES } from '../config.js';
import { randomNearArgs, type IndexKeys, type NearArgs } from './catalog-index.js';
import type { GraphQLRequest } from './queries.js';

/** A serving scenario's name. */
export type ServingScenario = 'small' | 'site' | 'cities' | 'deep' | 'sitesNear';

/** The scenarios a peer other than the gateway may be asked to spell (the index is the gateway's own). */
export type PeerScenario = Exclude<ServingScenario, 'sitesNear'>;

/** Variables of each scenario's query, by scenario. */
export interface ScenarioVariables {
  small: { goodsCode: string };
  site: { code: string };
  cities: { page: number; pageSize: number };
  deep: { page: number; pageSize: number };
  sitesNear: NearArgs;
}

/** One request of a scenario: its variables (also the key the mock answers for). */
export type ServingKey<S extends ServingScenario = ServingScenario> = ScenarioVariables[S];

/** The catalog's keys, as the mock announces them. */
export interface ServingKeys extends IndexKeys {
  siteCodes: readonly string[];
  goodsCodes: readonly string[];
}

const GATEWAY_QUERIES: Record<ServingScenario, string> = {
  small: 'query Small($goodsCode: String!) { product(goodsCode: $goodsCode) { productName ipName guidePrice } }',
  site: `query Site($code: String!) {
  site(code: $code) { code name points { code name cargoLanes { stock guidePrice product { goodsCode productName ipName guidePrice } } } }
}`,
  cities: 'query Cities($page: Int!, $pageSize: Int!) { cities(page: $page, pageSize: $pageSize) { items { code name } } }',
  deep: `query Deep($page: Int!, $pageSize: Int!) {
  sites(page: $page, pageSize: $pageSize) {
    items { code name points { code name cargoLanes { stock guidePrice product { goodsCode productName ipName guidePrice } } } }
  }
}`,
  sitesNear: `query SitesNear($lat: Float!, $lng: Float!, $radiusKm: Float!, $first: Int!, $hasProduct: String) {
  sitesNear(lat: $lat, lng: $lng, radiusKm: $radiusKm, first: $first, hasProduct: $hasProduct) {
    distanceKm site { code name address openTime closeTime }
  }
}`,
};

/** The gateway's request for `key` of `scenario`. */
export function gatewayRequest<S extends ServingScenario>(scenario: S, key: ServingKey<S>): GraphQLRequest {
  return { query: GATEWAY_QUERIES[scenario], variables: { ...key } };
}

/**
 * Every key of a scenario, for the checked warm-up. `sitesNear` has no end of keys: `samples`
 * random ones stand for them.
 */
export function everyKey<S extends ServingScenario>(scenario: S, keys: ServingKeys, samples: number): Array<ServingKey<S>> {
  const all: { [T in ServingScenario]: () => Array<ServingKey<T>> } = {
    small: () => keys.goodsCodes.map((goodsCode) => ({ goodsCode })),
    site: () => keys.siteCodes.map((code) => ({ code })),
    cities: () => [{ ...CITIES_PAGE }],
    deep: () => [{ page: 1, pageSize: COLD_SITES }],
    sitesNear: () => Array.from({ length: samples }, () => randomNearArgs(keys)),
  };
  return all[scenario]() as Array<ServingKey<S>>;
}

/** A random key of a scenario, for the load run (the pages have one key only). */
export function randomKey<S extends ServingScenario>(scenario: S, keys: ServingKeys): ServingKey<S> {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)]!;
  const next: { [T in ServingScenario]: () => ServingKey<T> } = {
    small: () => ({ goodsCode: pick(keys.goodsCodes) }),
    site: () => ({ code: pick(keys.siteCodes) }),
    cities: () => ({ ...CITIES_PAGE }),
    deep: () => ({ page: 1, pageSize: COLD_SITES }),
    sitesNear: () => randomNearArgs(keys),
  };
  return next[scenario]() as ServingKey<S>;
}
