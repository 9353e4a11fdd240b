// needs: relay-runtime@21.x relay-compiler@21.x
/**
 * Relay: an Environment whose network is one fetch function, and a query compiled ahead of time
 * by relay-compiler (`npx relay-compiler` in examples/recipes/, beside relay.config.json) into
 * `__generated__/relaySitesQuery.graphql.ts`. In an app, babel-plugin-relay (or vite-plugin-relay)
 * turns the `graphql` tag into an import of that file; this recipe, with no build step, imports
 * it by hand and keeps the tag as a plain string for the compiler to read.
 */
import { Environment, Network, RecordSource, Store, fetchQuery, type FetchFunction } from 'relay-runtime';
import type { relaySitesQuery } from './__generated__/relaySitesQuery.graphql.js';
import SitesQuery from './__generated__/relaySitesQuery.graphql.js';

const graphql = String.raw;

export const SITES = graphql`
  query relaySitesQuery($city: String!) {
    sites(cityCode: $city, pageSize: 5) {
      total
      items { id code name city { name } stockSummary { totalStock } }
    }
  }
`;

export async function run(url: string) {
  const fetchFn: FetchFunction = async (params, variables) => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
      body: JSON.stringify({ query: params.text, variables }),
    });
    return response.json();
  };
  const environment = new Environment({ network: Network.create(fetchFn), store: new Store(new RecordSource()) });
  const data = await fetchQuery<relaySitesQuery>(environment, SitesQuery, { city: 'SH' }).toPromise();
  return data!.sites;
}
