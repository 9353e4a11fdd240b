/**
 * GraphiQL on `/graphql` (when `GRAPHIQL` is on), served whole by the gateway. Yoga's own page
 * loads GraphiQL's scripts, styles, editor workers and favicon from unpkg.com and GitHub;
 * `@graphql-yoga/render-graphiql` inlines them all in the page instead (about 9 MB), so the
 * explorer works offline and behind a firewall, and the page runs no code from a CDN.
 *
 * It opens with one tab per example of example-query.ts.
 *
 * The page is served by this plugin rather than by yoga's `graphiql` option: yoga answers it
 * before any plugin's `onRequest`, so the API keys and the rate limit never saw it (9 MB a load,
 * for anyone, as fast as they asked). Put the plugin after `useRateLimit`: a page load counts
 * like any request. It stays open without a key (a browser's address bar sends none; the page's
 * queries need one), so `useApiKeys` lets exactly `isGraphiQLPageRequest` through.
 */
import type { GraphiQLOptions, Plugin } from 'graphql-yoga';
import { EXAMPLE_QUERIES, EXAMPLE_QUERY } from './example-query.js';
import { currentRequest } from '../../request/record.js';

/** The path of the page: the GraphQL endpoint (yoga's default, which the gateway keeps). */
export const GRAPHIQL_PATH = '/graphql';

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
 * (yoga's own test, less its looser match of any path ending in the endpoint). Such a request
 * gets the page, never a GraphQL result, whatever its query string says.
 */
export function isGraphiQLPageRequest(request: Request, url: URL): boolean {
  return request.method === 'GET' && url.pathname === GRAPHIQL_PATH && (request.headers.get('accept') ?? '').includes('text/html');
}

/** Serves the page with `options` (`GRAPHIQL_OPTIONS`); `false` (GRAPHIQL off) serves nothing. */
export function useGraphiQLPage(options: GraphiQLOptions | false): Plugin {
  if (options === false) return {};
  const render = createGraphiQLRenderer();
  return {
    async onRequest({ request, url, endResponse, fetchAPI }) {
      if (!isGraphiQLPageRequest(request, url)) return;
      // The page is not a GraphQL request: no request log line, no request metric.
      const record = currentRequest();
      if (record !== undefined) record.graphql = false;
      const page = await render(options);
      endResponse(new fetchAPI.Response(page, { status: 200, headers: { 'content-type': 'text/html' } }));
    },
  };
}

// Private: the page, remembered encoded: it is asked for on every view, with the same options
// every time, and building and encoding 9 MB blocks the event loop for 10 to 20 ms.
function createGraphiQLRenderer(): (options: GraphiQLOptions) => Promise<Buffer<ArrayBuffer>> {
  let last: { key: string; page: Promise<Buffer<ArrayBuffer>> } | undefined;
  return (options) => {
    const key = JSON.stringify(options);
    if (last?.key !== key) last = { key, page: renderPage(options) };
    return last.page;
  };
}

// Private: the renderer is loaded on the first page view, not at start-up: its 9 MB of script
// (some 40 MB of memory, 0.3 s to load) are of no use to a gateway without GraphiQL.
async function renderPage(options: GraphiQLOptions): Promise<Buffer<ArrayBuffer>> {
  const { renderGraphiQL } = await import('@graphql-yoga/render-graphiql');
  return Buffer.from(renderGraphiQL(options), 'utf8');
}
