/**
 * `GET /schema.graphql`: the schema's SDL for client tooling. It tells no more than introspection
 * and follows it: with introspection off, 404.
 */
import type { Plugin } from 'graphql-yoga';
import { ROUTES } from '../../admission/routes.js';

export const SCHEMA_SDL_PATH = ROUTES.schema;

export function useSchemaSdl(sdl: string, introspection: boolean): Plugin {
  if (!introspection) return {};
  return {
    onRequest({ url, request, endResponse, fetchAPI }) {
      if (url.pathname !== SCHEMA_SDL_PATH || request.method !== 'GET') return;
      endResponse(new fetchAPI.Response(sdl, { headers: { 'content-type': 'text/plain; charset=utf-8' } }));
    },
  };
}
