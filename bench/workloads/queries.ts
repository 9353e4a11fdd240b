/**
 * The operations the bench sends, each in two spellings: the gateway's contract
 * (`schema.graphql`) and the closest equivalent over Mesh's schema, which mirrors the REST
 * operations (envelope `result`, `cargolanes`, no city on site detail, no city by code).
 */

/** A GraphQL request body. */
export interface GraphQLRequest {
  query: string;
  variables?: Record<string, unknown>;
}

/** Which server a request is spelled for. */
export type Flavour = 'gateway' | 'mesh';

const GATEWAY_DEEP = `query Deep($page: Int!, $pageSize: Int!) {
  sites(page: $page, pageSize: $pageSize) {
    items { code name city { code name } points { code name cargoLanes { stock guidePrice product { productName ipName guidePrice } } } }
  }
}`;

const MESH_DEEP = `query Deep($page: Int!, $pageSize: Int!) {
  siteListWithPoints(page: $page, pageSize: $pageSize) {
    result { items { code name cityCode cityName points { code name cargolanes { stock guidePrice product { productName ipName guidePrice } } } } }
  }
}`;

const GATEWAY_SMALL = `query Small($goodsCode: String!) { product(goodsCode: $goodsCode) { productName ipName guidePrice } }`;
const MESH_SMALL = `query Small($goodsCode: String!) { productDetail(goodsCode: $goodsCode) { result { productName ipName guidePrice } } }`;

/** A page of `sites` sites (the first by default) with city, points, lanes and each lane's product. */
export function deepQuery(flavour: Flavour, sites: number, page = 1): GraphQLRequest {
  return { query: flavour === 'gateway' ? GATEWAY_DEEP : MESH_DEEP, variables: { page, pageSize: sites } };
}

/** One product by goods code. */
export function smallQuery(flavour: Flavour, goodsCode: string): GraphQLRequest {
  return { query: flavour === 'gateway' ? GATEWAY_SMALL : MESH_SMALL, variables: { goodsCode } };
}

/** A page of products with every field. */
export function productPage(page: number, pageSize: number): GraphQLRequest {
  return {
    query: `query Products($page: Int!, $pageSize: Int!) {
      products(page: $page, pageSize: $pageSize) { total items { goodsCode skuCode productName ipId ipName costPrice guidePrice orderPic } }
    }`,
    variables: { page, pageSize },
  };
}
