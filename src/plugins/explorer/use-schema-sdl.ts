/**
 * `GET /schema.graphql`: the schema's SDL, the text of schema.graphql, for client tooling
 * (graphql-codegen's `schema: http://host:4000/schema.graphql`, editors, linters). It tells no
 * more than introspection does, and follows it: when `INTROSPECTION` is off, the path is not
 * served (404). Behind the API keys when they are set (put it after `useApiKeys`).
 */
import type { Plugin } from 'graphql-yoga';
import { ROUTES } from '../../edge/routes.js';

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
