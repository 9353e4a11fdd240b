/**
 * `GET /`: where things are, for a person who opened the gateway's address: the GraphQL
 * endpoint, the explorer and the example page when they are on, and the docs. HTML for a
 * browser, JSON otherwise.
 */
import { ROUTES } from '../admission/routes.js';
import type { Page } from './page.js';

export interface RootLinks {
  graphiql: boolean;
  demo: boolean;
}

/** Where the documentation lives in the repository the gateway is built from. */
const DOCS = 'README.md and docs/ in the gateway\'s repository';

export function rootPage({ graphiql, demo }: RootLinks): Page {
  const links = {
    graphql: ROUTES.graphql,
    ...(graphiql && { explorer: ROUTES.graphql }),
    ...(demo && { demo: `${ROUTES.demo}/` }),
    schema: ROUTES.schema,
    docs: DOCS,
  };
  const json = JSON.stringify({ name: 'vending-graph', ...links, hint: `Send GraphQL to ${ROUTES.graphql} (POST application/json, or GET ?query=…)` });
  const html = '<!doctype html><meta charset="utf-8"><title>vending-graph</title><h1>vending-graph</h1><ul>'
    + `<li>GraphQL: <code>${ROUTES.graphql}</code>${graphiql ? ` (<a href="${ROUTES.graphql}">explorer</a>)` : ''}</li>`
    + (demo ? `<li><a href="${ROUTES.demo}/">Example page</a></li>` : '')
    + `<li><a href="${ROUTES.schema}">Schema</a></li><li>Docs: ${DOCS}</li></ul>`;
  return ({ request, url }) => {
    if (url.pathname !== ROUTES.root || request.method !== 'GET') return undefined;
    const browser = (request.headers.get('accept') ?? '').includes('text/html');
    return new Response(browser ? html : json, {
      headers: { 'content-type': browser ? 'text/html; charset=utf-8' : 'application/json; charset=utf-8', 'cache-control': 'no-cache', vary: 'Accept' },
    });
  };
}
