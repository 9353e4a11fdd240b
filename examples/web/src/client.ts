/**
 * The page's GraphQL client: urql over `fetch`, with graphcache, the normalised cache. Cities,
 * sites, points and products are entities keyed by their global `id`, so a site fetched for a
 * city's list and again for a product's availability is one record, updated in both places.
 */
import { Client, fetchExchange } from '@urql/core';
import { cacheExchange } from '@urql/exchange-graphcache';

/** Types without an `id`: kept inside the entity that holds them instead of on their own. */
const EMBEDDED_TYPES = ['CityPage', 'SitePage', 'ProductPage', 'SiteDistance', 'Availability', 'SiteStock', 'CargoLane'];

/** A client of the GraphQL endpoint at `url` (the page's own gateway: `/graphql`). */
export function createGraphQLClient(url: string): Client {
  return new Client({
    url,
    // POST even for short queries: the gateway's CSRF prevention, when on, would want a header on GET.
    preferGetMethod: false,
    exchanges: [
      cacheExchange({ keys: Object.fromEntries(EMBEDDED_TYPES.map((type) => [type, () => null])) }),
      fetchExchange,
    ],
  });
}
