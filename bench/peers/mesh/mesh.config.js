/**
 * Mesh Compose: the upstream's OpenAPI description → one subgraph, plus the link a Mesh user
 * adds by hand, `CargoLane.product`, resolved through the product-detail operation (one call
 * per lane: that is what `@resolveTo` without a batch key does). The endpoint and the bearer
 * token are `{env.…}` templates, interpolated by the gateway at request time, so the
 * composed supergraph holds neither.
 */
import { defineConfig } from '@graphql-mesh/compose-cli';
import { loadOpenAPISubgraph } from '@omnigraph/openapi';

export const composeConfig = defineConfig({
  subgraphs: [
    {
      sourceHandler: loadOpenAPISubgraph('Vending', {
        source: './openapi.yaml',
        endpoint: '{env.UPSTREAM_BASE_URL}',
        operationHeaders: { Authorization: 'Bearer {env.UPSTREAM_TOKEN}' },
      }),
    },
  ],
  additionalTypeDefs: /* GraphQL */ `
    extend type CargoLane {
      product: Product
        @resolveTo(
          sourceName: "Vending"
          sourceTypeName: "Query"
          sourceFieldName: "productDetail"
          requiredSelectionSet: "{ goodsCode }"
          sourceArgs: { goodsCode: "{root.goodsCode}" }
          result: "result"
        )
    }
  `,
});
