// needs: relay-runtime@21.x relay-compiler@21.x
// gateway: PERSISTED_OPERATIONS_FILE=__generated__/persisted-queries.json
/**
 * Relay with persisted ids: relay-compiler's `persistConfig` setting (examples/recipes/relay.config.json)
 * writes each query's md5 id into its artifact's `params.id` and the id-to-text map into
 * `__generated__/persisted-queries.json` (which must exist, `{}`, before the first compile), the
 * file to give the gateway as `PERSISTED_OPERATIONS_FILE`. The network layer then sends the id
 * alone, never the text, so a gateway in allow-list mode runs exactly the app's queries.
 */
import { Environment, fetchQuery, Network, RecordSource, Store, type FetchFunction } from 'relay-runtime';
import SiteQuery, { type relayPersistedSiteQuery } from './__generated__/relayPersistedSiteQuery.graphql.js';

const graphql = String.raw;

export const SITE = graphql`
  query relayPersistedSiteQuery($code: String!) {
    site(code: $code) { id code name city { name } stockSummary { totalStock } }
  }
`;

/** Fetches site S000001 by its query's persisted id from the gateway at `url`, started with the map. */
export async function run(url: string) {
  const fetchFn: FetchFunction = async (params, variables) => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
      body: JSON.stringify({ doc_id: params.id, variables }),
    });
    return response.json();
  };
  const environment = new Environment({ network: Network.create(fetchFn), store: new Store(new RecordSource()) });
  const data = await fetchQuery<relayPersistedSiteQuery>(environment, SiteQuery, { code: 'S000001' }).toPromise();
  return data!.site;
}
