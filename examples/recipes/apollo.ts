// needs: @apollo/client@4.x graphql@16.x rxjs@7.x
/**
 * Apollo Client 4 against the gateway: a normalised cache (every entity has an `id`), automatic
 * persisted queries (the sha256 of the query first, the query itself only when the gateway
 * does not know it yet) and `@defer`, which Apollo Client 4 reads only with an incremental
 * handler for the format the gateway sends (the 2022 one).
 */
import { ApolloClient, ApolloLink, HttpLink, InMemoryCache, gql, type TypedDocumentNode } from '@apollo/client';
import { Defer20220824Handler } from '@apollo/client/incremental';
import { PersistedQueryLink } from '@apollo/client/link/persisted-queries';

// The data's types; in an app, GraphQL Code Generator writes them from schema.graphql.
type Site = { id: string; code: string; name: string };
type Lane = { stock: number; product: { id: string; productName: string } | null };
type Sites = { sites: { items: (Site & { city: { name: string } })[] } };
type SiteWithLanes = { site: (Site & { points?: { id: string; name: string; cargoLanes: Lane[] }[] }) | null };

const SITES: TypedDocumentNode<Sites> = gql`
  query Sites {
    sites(pageSize: 3) { items { id code name city { name } } }
  }
`;

const SITE_WITH_LANES: TypedDocumentNode<SiteWithLanes, { code: string }> = gql`
  query SiteWithLanes($code: String!) {
    site(code: $code) {
      id
      code
      name
      ... @defer { points { id name cargoLanes { stock product { id productName } } } }
    }
  }
`;

/** Web Crypto's SHA-256, in hex: the same in browsers and Node. */
async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return Buffer.from(digest).toString('hex');
}

export async function run(url: string) {
  const client = new ApolloClient({
    link: ApolloLink.from([new PersistedQueryLink({ sha256 }), new HttpLink({ uri: url })]),
    cache: new InMemoryCache(),
    incrementalHandler: new Defer20220824Handler(),
  });
  try {
    const sites = await client.query({ query: SITES });
    const code = sites.data!.sites.items[0]!.code;
    const site = await client.query({ query: SITE_WITH_LANES, variables: { code } });
    return { sites: sites.data!.sites.items, site: site.data!.site };
  } finally {
    client.stop();
  }
}
