/**
 * The route step on yoga's path: a path the gateway serves nothing at (admission/routes.ts) gets
 * the registry's 404 before anything reads it; yoga would serve any URL merely ending with the
 * endpoint, which gets one too.
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
