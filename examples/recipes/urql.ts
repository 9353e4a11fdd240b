// needs: @urql/core@6.x @urql/exchange-graphcache@9.x graphql-sse@2.x graphql@16.x
/**
 * urql with graphcache, the normalised cache: entities are keyed by their global `id`; types
 * without one (pages, stock summaries) are embedded in their parent. Subscriptions go over GraphQL
 * over SSE (graphql-sse in distinct-connections mode, the one the gateway speaks), which needs
 * nothing but `fetch`, in a browser as on Node.
 */
import { Client, fetchExchange, gql, subscriptionExchange } from '@urql/core';
import { cacheExchange } from '@urql/exchange-graphcache';
import { createClient as createSSEClient } from 'graphql-sse';

const EMBEDDED = ['SitePage', 'ProductPage', 'CityPage', 'SiteDistance', 'Availability', 'SiteStock', 'CargoLane'];

const CITY_SITES = gql`
  query CitySites($city: String!) {
    city(code: $city) { id name sites(pageSize: 5) { total items { id code name isOpen } } }
  }
`;

const SITE_STOCK = gql`
  subscription SiteStock($code: String!) {
    siteStock(code: $code) { code points { code cargoLanes { goodsCode stock } } }
  }
`;

export async function run(url: string) {
  const sse = createSSEClient({ url, singleConnection: false });
  const client = new Client({
    url,
    exchanges: [
      cacheExchange({ keys: Object.fromEntries(EMBEDDED.map((type) => [type, () => null])) }),
      subscriptionExchange({
        forwardSubscription: (request) => ({
          subscribe: (sink) => ({ unsubscribe: sse.subscribe({ ...request, query: request.query ?? '' }, sink) }),
        }),
      }),
      fetchExchange,
    ],
  });
  try {
    const city = await client.query(CITY_SITES, { city: 'SH' }).toPromise();
    if (city.error) throw city.error;
    const code = city.data.city.sites.items[0].code as string;
    // The first event of siteStock is the site as it is now; then one per change.
    const first = await new Promise((resolve, reject) => {
      const { unsubscribe } = client.subscription(SITE_STOCK, { code }).subscribe((result) => {
        unsubscribe();
        if (result.error) reject(result.error);
        else resolve(result.data.siteStock);
      });
    });
    return { city: city.data.city, siteStock: first };
  } finally {
    sse.dispose();
  }
}
