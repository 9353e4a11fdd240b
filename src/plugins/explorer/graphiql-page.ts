/**
 * GraphiQL on `/graphql` (when `GRAPHIQL` is on), served whole by the gateway. Yoga's own page
 * loads GraphiQL's scripts, styles, editor workers and favicon from unpkg.com and GitHub;
 * `@graphql-yoga/render-graphiql` inlines them all in the page instead (about 9 MB), so the
 * explorer works offline and behind a firewall, and the page runs no code from a CDN.
 *
 * It opens with one tab per example of example-query.ts.
 */
import type { GraphiQLOptions } from 'graphql-yoga';
import { EXAMPLE_QUERIES, EXAMPLE_QUERY } from '../../example-query.js';

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
 * yoga's `renderGraphiQL` option. It remembers the last page, encoded: yoga asks for one per page
 * view, with the same options every time, and building and encoding 9 MB blocks the event loop
 * for 10 to 20 ms.
 */
export function createGraphiQLRenderer(): (options: GraphiQLOptions) => Promise<Buffer<ArrayBuffer>> {
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
