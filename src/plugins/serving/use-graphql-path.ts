/**
 * GraphQL on exactly one path (admission/route.ts): yoga would serve any URL that merely
 * ends with the endpoint; such a request gets 404 before anything reads the path.
 */
import type { Plugin } from 'graphql-yoga';
import { pathRefusal } from '../../admission/route.js';
import { ROUTES } from '../../admission/routes.js';
import { refusalResponse } from '../../admission/refusal-writer.js';

export function useGraphQLPath(): Plugin {
  const endpoint = ROUTES.graphql;
  return {
    onRequest({ request, url, endResponse, fetchAPI }) {
      const refused = pathRefusal(request.url, url.pathname, endpoint);
      if (refused !== undefined) endResponse(refusalResponse(fetchAPI, refused));
    },
  };
}
