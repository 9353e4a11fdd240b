/**
 * GraphQL on exactly one path. yoga treats a request as GraphQL when its URL merely *ends* with
 * the endpoint (`/x/graphql`, `/graphql/`, `/anything?next=/graphql`), and such requests would
 * run past everything that looks at the path: the request log, the metrics, the response
 * cache's rules. Here they get 404, as any other unknown path does.
 */
import type { Plugin } from 'graphql-yoga';
import { errorResponse } from './error-response.js';

export function useGraphQLPath(): Plugin {
  let endpoint = '/graphql';
  return {
    onYogaInit({ yoga }) {
      endpoint = yoga.graphqlEndpoint;
    },
    onRequest({ request, url, endResponse, fetchAPI }) {
      if (url.pathname === endpoint) return;
      const routedAsGraphQL = request.url.endsWith(endpoint) || request.url.endsWith(`${endpoint}/`) || url.pathname === `${endpoint}/`;
      if (!routedAsGraphQL) return;
      endResponse(errorResponse(fetchAPI, 404, { message: `GraphQL is served at ${endpoint} only`, code: 'NOT_FOUND' }));
    },
  };
}
