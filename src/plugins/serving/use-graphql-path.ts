/**
 * GraphQL on exactly one path, on yoga's path: the admission's rule (edge/admission/route.ts).
 * yoga treats a request as GraphQL when its URL merely *ends* with the endpoint; here such a
 * request gets 404, before anything that looks at the path (request log, metrics, response cache).
 */
import type { Plugin } from 'graphql-yoga';
import { pathRefusal } from '../../edge/admission/route.js';
import { ROUTES } from '../../edge/routes.js';
import { refusalResponse } from '../../edge/refusal-writer.js';

export function useGraphQLPath(): Plugin {
  const endpoint = ROUTES.graphql;
  return {
    onRequest({ request, url, endResponse, fetchAPI }) {
      const refused = pathRefusal(request.url, url.pathname, endpoint);
      if (refused !== undefined) endResponse(refusalResponse(fetchAPI, refused));
    },
  };
}
