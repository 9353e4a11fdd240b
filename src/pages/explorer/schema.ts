/**
 * `GET /schema.graphql`: the schema's SDL for client tooling. It tells no more than introspection
 * and follows it: with introspection off, 404.
 */
import { ROUTES } from '../../admission/routes.js';
import type { Page } from '../page.js';

export const SCHEMA_SDL_PATH = ROUTES.schema;

export function schemaPage(sdl: string, introspection: boolean): Page {
  return ({ url, request }) => {
    if (!introspection || url.pathname !== SCHEMA_SDL_PATH || request.method !== 'GET') return undefined;
    return new Response(sdl, { headers: { 'content-type': 'text/plain; charset=utf-8' } });
  };
}
