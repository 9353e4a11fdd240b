/**
 * The page's GraphQL client: urql with graphcache, the normalised cache. Cities, sites, points
 * and products are entities keyed by their global `id`, so a site fetched for a city's list and
 * again for a product's availability is one record, updated in both places.
 *
 * Queries go over `fetch`; subscriptions over GraphQL over SSE (the graphql-sse client, in its
 * distinct-connections mode: one `text/event-stream` response per subscription, which the
 * gateway serves at the same endpoint). A pushed site is written to the same cache, so every
 * query showing it updates too.
 */
import { Client, fetchExchange, subscriptionExchange, type SubscriptionForwarder } from '@urql/core';
import { cacheExchange } from '@urql/exchange-graphcache';
import { createClient as createSSEClient, type Client as SSEClient } from 'graphql-sse';

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
      // `singleConnection: false` is graphql-sse's default, written out because the gateway speaks
      // only that mode. A dropped stream is retried (graphql-sse's default: 5 times, backing off).
      subscriptionExchange({ forwardSubscription: overSSE(createSSEClient({ url, singleConnection: false })) }),
      fetchExchange,
    ],
  });
}

// Private: each subscription over its own SSE stream. urql merges a subscription's results as if
// they were parts of one answer, errors included: once an event had `errors`, every later one
// would carry them too. So every event after the first says what errors it has, `[]` for none,
// and a pushed site after an error event is a result without error again.
function overSSE(sse: SSEClient): SubscriptionForwarder {
  return (request) => ({
    subscribe(sink) {
      let first = true;
      const unsubscribe = sse.subscribe<Record<string, unknown>, Record<string, unknown>>({ ...request, query: request.query ?? '' }, {
        next(result) {
          sink.next(first || result.errors ? result : { ...result, errors: [] });
          first = false;
        },
        error: (error) => sink.error(error),
        complete: () => sink.complete(),
      });
      return { unsubscribe };
    },
  });
}
