// needs: @apollo/client@4.x graphql@16.x rxjs@7.x
/**
 * Recipe: cursor pagination with Apollo Client 4. `relayStylePagination()` merges each page that
 * `fetchMore` brings into one list of edges in the cache, so the query's result grows as the
 * client pages; `run` pages through a city's sites to the end and returns what it saw.
 */
import { ApolloClient, gql, HttpLink, InMemoryCache, type TypedDocumentNode } from '@apollo/client';
import { relayStylePagination } from '@apollo/client/utilities';

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

const CITY_SITES: TypedDocumentNode<CitySites, { code: string; first: number; after?: string | null }> = gql`
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
  const client = new ApolloClient({
    link: new HttpLink({ uri: new URL('/graphql', url).href }),
    cache: new InMemoryCache({
      // One list per city, whatever `first` and `after` each page was asked with.
      typePolicies: { City: { fields: { sitesConnection: relayStylePagination() } } },
    }),
  });
  try {
    const sites = client.watchQuery({ query: CITY_SITES, variables: { code: cityCode, first } });
    let pageInfo: { hasNextPage: boolean; endCursor: string | null } = { hasNextPage: true, endCursor: null };
    while (pageInfo.hasNextPage) {
      const { data } = await sites.fetchMore({ variables: { after: pageInfo.endCursor } });
      pageInfo = data?.city?.sitesConnection.pageInfo ?? { hasNextPage: false, endCursor: null };
    }
    // The cache's merged list: every page's edges, in order.
    const merged = client.readQuery({ query: CITY_SITES, variables: { code: cityCode, first } });
    return merged?.city?.sitesConnection.edges.map(({ node: { id, code, name } }) => ({ id, code, name })) ?? [];
  } finally {
    client.stop();
  }
}
