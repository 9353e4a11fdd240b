// needs: @urql/core@6.x @urql/exchange-graphcache@9.x
/**
 * Recipe: cursor pagination with urql and Graphcache. `relayPagination()` resolves a
 * connection from every page cached for it, so each page's result holds the edges of all pages
 * so far; `run` pages through a city's sites to the end and returns what it saw.
 */
import { Client, fetchExchange, gql, type OperationResult } from '@urql/core';
import { cacheExchange } from '@urql/exchange-graphcache';
import { relayPagination } from '@urql/exchange-graphcache/extras';

/** A site as this recipe asks for it. */
export interface SiteNode {
  id: string;
  code: string;
  name: string;
}

interface CitySites {
  city: {
    id: string;
    sitesConnection: {
      edges: { cursor: string; node: SiteNode }[];
      pageInfo: { hasNextPage: boolean; endCursor: string | null };
    };
  } | null;
}

type SitesConnection = NonNullable<CitySites['city']>['sitesConnection'];

const CITY_SITES = gql<CitySites, { code: string; first: number; after: string | null }>`
  query CitySites($code: String!, $first: Int!, $after: String) {
    city(code: $code) {
      id
      sitesConnection(first: $first, after: $after) {
        edges { cursor node { id code name } }
        pageInfo { hasNextPage endCursor }
      }
    }
  }
`;

/** Pages through the sites of `cityCode` (`first` a page) at the gateway at `url`; returns every site seen. */
export async function run(url: string, cityCode = 'SH', first = 5): Promise<SiteNode[]> {
  const cache = cacheExchange({
    // Connections, edges and page info have no id of their own: they live inside their parent.
    keys: { SiteConnection: () => null, SiteEdge: () => null, PageInfo: () => null },
    resolvers: { City: { sitesConnection: relayPagination() } },
  });
  const client = new Client({ url: new URL('/graphql', url).href, exchanges: [cache, fetchExchange] });
  let after: string | null = null;
  for (;;) {
    const result: OperationResult<CitySites> = await client.query(CITY_SITES, { code: cityCode, first, after }).toPromise();
    if (result.error) throw result.error;
    const connection: SitesConnection | undefined = result.data?.city?.sitesConnection;
    if (!connection?.pageInfo.hasNextPage) {
      // The last page's result: every page's edges, merged by relayPagination.
      return connection?.edges.map(({ node: { id, code, name } }) => ({ id, code, name })) ?? [];
    }
    after = connection.pageInfo.endCursor;
  }
}
