/**
 * GraphiQL on `/graphql` (when `GRAPHIQL` is on), served whole by the gateway. Yoga's own page
 * loads GraphiQL's scripts, styles, editor workers and favicon from unpkg.com and GitHub;
 * `@graphql-yoga/render-graphiql` holds them all instead (about 9 MB), so the explorer works
 * offline and behind a firewall, and the page runs no code from a CDN. They are served as a small
 * revalidated page and hashed, immutable, compressed assets (graphiql-assets.ts).
 *
 * It opens with one tab per example of example-query.ts.
 *
 * The page is served by this plugin rather than by yoga's `graphiql` option: yoga answers it
 * before any plugin's `onRequest`, so the API keys and the rate limit never saw it (9 MB a load,
 * for anyone, as fast as they asked). Put the plugin after `useRateLimit`: the page and each
 * asset count like any request. They stay open without a key (a browser's address bar sends none;
 * the page's queries need one), so `useApiKeys` lets exactly `isGraphiQLRequest` through.
 */
import type { GraphiQLOptions, Plugin } from 'graphql-yoga';
import { EXAMPLE_QUERIES, EXAMPLE_QUERY } from './example-query.js';
import { buildGraphiQLFiles, GRAPHIQL_ASSETS_PATH, type GraphiQLFiles } from './graphiql-assets.js';
import { currentRequest } from '../../request/record.js';
import { ROUTES } from '../../edge/routes.js';

/** The path of the page: the GraphQL endpoint. */
export const GRAPHIQL_PATH = ROUTES.graphql;

/**
 * yoga's `graphiql` option. The tabs are GraphiQL's first-visit state; it then keeps the user's
 * own (in localStorage). `defaultQuery` is what a new tab starts with.
 *
 * `query` (passed through to yoga's GraphiQL component, though its options type omits it) is what
 * the open tab shows: without it, yoga's page shows its own welcome text there, whatever the tabs
 * hold, and adds a tab of that text on each later visit. It also outranks a `?query=` address.
 */
export const GRAPHIQL_OPTIONS: GraphiQLOptions & { query: string } = {
  title: 'vending-graph',
  query: EXAMPLE_QUERY,
  defaultQuery: EXAMPLE_QUERY,
  defaultTabs: EXAMPLE_QUERIES.map((query) => ({ query })),
};

/**
 * Whether `request` asks for the page: a GET of the endpoint's exact path that accepts HTML
 * (yoga's own test, less its looser match of any path ending in the endpoint), or a HEAD of it,
 * answered as the GET without its body. Such a request gets the page, never a GraphQL result,
 * whatever its query string says.
 */
function isGraphiQLPageRequest(request: Request, url: URL): boolean {
  return (request.method === 'GET' || request.method === 'HEAD') && url.pathname === GRAPHIQL_PATH && (request.headers.get('accept') ?? '').includes('text/html');
}

/** Whether `request` asks for the page, or GETs or HEADs one of its assets: what needs no API key. */
export function isGraphiQLRequest(request: Request, url: URL): boolean {
  return isGraphiQLPageRequest(request, url) || isAssetRequest(request, url);
}

/**
 * Serves the page and its assets with `options` (`GRAPHIQL_OPTIONS`); `false` (GRAPHIQL off) serves
 * nothing. `compress` is `COMPRESSION`: false sends them identity.
 */
export function useGraphiQLPage(options: GraphiQLOptions | false, { compress = true } = {}): Plugin {
  if (options === false) return {};
  // Built on the first request for them, not at start-up: the renderer's 9 MB of script (some
  // 40 MB of memory, 0.3 s to load) are of no use to a gateway nobody browses.
  let files: Promise<GraphiQLFiles> | undefined;
  return {
    async onRequest({ request, url, endResponse, fetchAPI }) {
      const page = isGraphiQLPageRequest(request, url);
      if (!page && !isAssetRequest(request, url)) return;
      // Neither is a GraphQL request: no request log line, no request metric, no `no-store`.
      const record = currentRequest();
      if (record !== undefined) record.graphql = false;
      files ??= buildGraphiQLFiles(options, compress);
      const { shell, assets } = await files;
      const file = page ? shell : assets.get(url.pathname);
      endResponse(file === undefined ? notFound(fetchAPI) : await file.respond(request, fetchAPI));
    },
  };
}

// Private: a GET or HEAD under the assets' path.
function isAssetRequest(request: Request, url: URL): boolean {
  return (request.method === 'GET' || request.method === 'HEAD') && url.pathname.startsWith(GRAPHIQL_ASSETS_PATH);
}

// Private: an asset name that is not (or no longer) one of ours.
function notFound(fetchAPI: { Response: typeof Response }): Response {
  return new fetchAPI.Response('Not found.', {
    status: 404,
    headers: { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff', 'cache-control': 'no-store' },
  });
}
