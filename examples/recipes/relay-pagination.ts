// needs: relay-runtime@21.x relay-compiler@21.x
/**
 * Recipe: cursor pagination with Relay's runtime, without React. relay-compiler compiles the
 * query below (`npx relay-compiler` in examples/recipes/, beside relay.config.json) into
 * `__generated__/relayPaginationQuery.graphql.ts`, which is what runs; `@connection` makes
 * Relay's ConnectionHandler append each page fetched after the connection's end cursor to one
 * list in the store. `run` pages through a city's sites to the end and returns what it saw.
 */
import {
  createOperationDescriptor, Environment, fetchQuery, Network, RecordSource, Store, type GraphQLResponse,
} from 'relay-runtime';
import query, { type relayPaginationQuery } from './__generated__/relayPaginationQuery.graphql.js';

// The text relay-compiler reads (babel-plugin-relay would swap the tag for the import above;
// without Babel, the tag is a plain string, kept where the compiler looks for it).
const graphql = String.raw;
export const QUERY_TEXT = graphql`
  query relayPaginationQuery($code: String!, $first: Int!, $after: String) {
    city(code: $code) {
      id
      sitesConnection(first: $first, after: $after) @connection(key: "relayPagination_sitesConnection") {
        edges { node { id code name } }
        pageInfo { hasNextPage endCursor }
      }
    }
  }
`;

type SitesConnection = NonNullable<relayPaginationQuery['response']['city']>['sitesConnection'];

/** A site as this recipe asks for it. */
export interface SiteNode {
  id: string;
  code: string;
  name: string;
}

/** Pages through the sites of `cityCode` (`first` a page) at the gateway at `url`; returns every site seen. */
export async function run(url: string, cityCode = 'SH', first = 5): Promise<SiteNode[]> {
  const endpoint = new URL('/graphql', url).href;
  const network = Network.create(async (params, variables) => {
    const response = await fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: params.text, variables }),
    });
    return (await response.json()) as GraphQLResponse;
  });
  const environment = new Environment({ network, store: new Store(new RecordSource()) });
  // Held while paging, so the store keeps the pages between fetches.
  const held = environment.retain(createOperationDescriptor(query, { code: cityCode, first, after: null }));
  try {
    let after: string | null = null;
    for (;;) {
      const data: relayPaginationQuery['response'] | undefined = await fetchQuery<relayPaginationQuery>(
        environment, query, { code: cityCode, first, after },
      ).toPromise();
      // The connection as the store holds it: the edges of every page so far, and the last page's info.
      const connection: SitesConnection | undefined = data?.city?.sitesConnection;
      if (!connection?.pageInfo.hasNextPage) {
        return connection?.edges.map(({ node: { id, code, name } }) => ({ id, code, name })) ?? [];
      }
      after = connection.pageInfo.endCursor ?? null;
    }
  } finally {
    held.dispose();
  }
}
