/**
 * GraphiQL on `/graphql`, served whole by the gateway from `@graphql-yoga/render-graphiql`, so the
 * explorer works offline and runs no code from a CDN (assets: graphiql-assets.ts). A page, not
 * yoga's `graphiql` option, so that the rate limit counts it; it needs no API key (a browser's
 * address bar sends none), so the pages' key step (pages.ts) lets exactly `isGraphiQLRequest` through.
 */
import type { GraphiQLOptions } from 'graphql-yoga';
import { EXAMPLE_QUERIES, EXAMPLE_QUERY } from './example-query.js';
import { buildGraphiQLFiles, GRAPHIQL_ASSETS_PATH, type GraphiQLFiles } from './graphiql-assets.js';
import { ROUTES } from '../../admission/routes.js';
import { refusal } from '../../admission/refusal.js';
import { refusalResponse } from '../../admission/refusal-writer.js';
import { FETCH, type Page } from '../page.js';

/** The path of the page: the GraphQL endpoint. */
export const GRAPHIQL_PATH = ROUTES.graphql;

/**
 * yoga's `graphiql` option: one first-visit tab per example. `query` (passed through, though the
 * type omits it) replaces yoga's welcome text in the open tab, which would otherwise add a tab.
 */
export const GRAPHIQL_OPTIONS: GraphiQLOptions & { query: string } = {
  title: 'vending-graph',
  query: EXAMPLE_QUERY,
  defaultQuery: EXAMPLE_QUERY,
  defaultTabs: EXAMPLE_QUERIES.map((query) => ({ query })),
};

/** Whether `request` asks for the page: a GET of the endpoint's exact path that accepts HTML (a HEAD arrives as its GET: doors/http/server.ts). */
export function isGraphiQLPageRequest(request: { method: string; headers: { get(name: string): string | null } }, url: { pathname: string }): boolean {
  return request.method === 'GET' && url.pathname === GRAPHIQL_PATH && (request.headers.get('accept') ?? '').includes('text/html');
}

/** Whether `request` asks for the page, or GETs one of its assets: what needs no API key. */
export function isGraphiQLRequest(request: Request, url: URL): boolean {
  return isGraphiQLPageRequest(request, url) || isAssetRequest(request, url);
}

/** Serves the page and its assets with `options`; `false` serves nothing. `compress` false sends them identity. */
export function graphiqlPage(options: GraphiQLOptions | false, { compress = true } = {}): Page {
  // Built on the first request, not at start-up: a gateway nobody browses need not hold them.
  let files: Promise<GraphiQLFiles> | undefined;
  return async ({ request, url }) => {
    const page = isGraphiQLPageRequest(request, url);
    if (options === false || (!page && !isAssetRequest(request, url))) return undefined;
    files ??= buildGraphiQLFiles(options, compress);
    const { shell, assets } = await files;
    const file = page ? shell : assets.get(url.pathname);
    return file === undefined ? notFound() : file.respond(request, FETCH);
  };
}

// Private: a GET under the assets' path.
function isAssetRequest(request: Request, url: URL): boolean {
  return request.method === 'GET' && url.pathname.startsWith(GRAPHIQL_ASSETS_PATH);
}

// Private: an asset name that is not (or no longer) one of ours.
function notFound(): Response {
  return refusalResponse(FETCH, refusal('NOT_FOUND'));
}
