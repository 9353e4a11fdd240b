/**
 * The GraphiQL page cut in two: what render-graphiql would inline becomes immutable assets with
 * hashed names, and the page a small revalidated shell carrying the options, so a second visit
 * fetches only the shell. The script reads the options from the shell's JSON block, so its hash
 * outlives a change of the examples and no script runs inline.
 */
import type * as Parts from '@graphql-yoga/render-graphiql/graphiql';
import type { GraphiQLOptions } from 'graphql-yoga';
import { ROUTES } from '../../admission/routes.js';
import { createStaticAsset, IMMUTABLE, type StaticAsset } from './static-asset.js';

/** Where the assets are served: `/graphql/assets/<hash>.js`, `.css` and `.ico`. */
export const GRAPHIQL_ASSETS_PATH = ROUTES.graphiqlAssets;

/** The shell's policy: the gateway only, but GraphiQL's inline styles, `data:` icons and `blob:` workers. */
export const GRAPHIQL_CONTENT_SECURITY_POLICY = [
  "default-src 'self'", "script-src 'self'", "worker-src 'self' blob:", "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:", "font-src 'self' data:", "connect-src 'self'",
  "object-src 'none'", "base-uri 'none'", "form-action 'self'", "frame-ancestors 'none'",
].join('; ');

/** The id of the shell's JSON block that holds the options. */
const OPTIONS_ID = 'graphiql-options';

export interface GraphiQLFiles {
  /** The page, at the endpoint's path. */
  shell: StaticAsset;
  /** The assets by path (`/graphql/assets/<hash>.<ext>`). */
  assets: Map<string, StaticAsset>;
}

/** Builds the shell and its assets for `options` (identity only when `compress` is false). */
export async function buildGraphiQLFiles(options: GraphiQLOptions, compress = true): Promise<GraphiQLFiles> {
  const parts = await import('@graphql-yoga/render-graphiql/graphiql');
  const script = asset(scriptOf(parts), 'text/javascript; charset=utf-8', compress);
  const style = asset(parts.css, 'text/css; charset=utf-8', compress);
  const icon = createStaticAsset(iconBytes(parts.favicon), { type: 'image/x-icon', cacheControl: IMMUTABLE, compress });
  const paths = { script: pathOf(script, 'js'), style: pathOf(style, 'css'), icon: pathOf(icon, 'ico') };
  const shell = createStaticAsset(Buffer.from(shellOf(options, paths), 'utf8'), {
    type: 'text/html; charset=utf-8',
    cacheControl: 'no-cache',
    headers: { 'content-security-policy': GRAPHIQL_CONTENT_SECURITY_POLICY },
    // The same URL answers GraphQL to any other Accept: no cache may give the page for that.
    vary: 'Accept',
    compress,
  });
  return { shell, assets: new Map([[paths.script, script], [paths.style, style], [paths.icon, icon]]) };
}

// Private: render-graphiql's inline script, with the options read from the shell.
function scriptOf(parts: typeof Parts): string {
  return `function prepareBlob(workerContent) {
  const blob = new Blob([workerContent], { type: 'application/javascript' });
  return URL.createObjectURL(blob);
}
const workers = {
  editorWorkerService: prepareBlob(${JSON.stringify(parts.editorWorkerService)}),
  json: prepareBlob(${JSON.stringify(parts.jsonWorker)}),
  graphql: prepareBlob(${JSON.stringify(parts.graphqlWorker)}),
};
self['MonacoEnvironment'] = {
  globalAPI: false,
  getWorkerUrl: function (moduleId, label) {
    return workers[label];
  },
};
${parts.js};
YogaGraphiQL.renderYogaGraphiQL(
  window.document.querySelector('#root'),
  JSON.parse(window.document.getElementById(${JSON.stringify(OPTIONS_ID)}).textContent),
);
`;
}

// Private: the page; `<` is escaped in the JSON block so that no text in the options closes it.
function shellOf(options: GraphiQLOptions, paths: { script: string; style: string; icon: string }): string {
  const json = JSON.stringify(options).replaceAll('<', '\\u003c');
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>${escapeHtml(options.title ?? 'GraphiQL')}</title>
    <link rel="icon" href="${paths.icon}" />
    <link rel="stylesheet" href="${paths.style}" />
  </head>
  <body id="body" class="no-focus-outline">
    <noscript>You need to enable JavaScript to run this app.</noscript>
    <div id="root"></div>
    <script type="application/json" id="${OPTIONS_ID}">${json}</script>
    <script src="${paths.script}"></script>
  </body>
</html>
`;
}

function asset(text: string, type: string, compress: boolean): StaticAsset {
  return createStaticAsset(Buffer.from(text, 'utf8'), { type, cacheControl: IMMUTABLE, compress });
}

function pathOf(file: StaticAsset, extension: string): string {
  return `${GRAPHIQL_ASSETS_PATH}${file.hash}.${extension}`;
}

// Private: the favicon's bytes, from render-graphiql's `data:image/x-icon;base64,…` URL.
function iconBytes(url: string): Buffer {
  return Buffer.from(url.slice(url.indexOf(',') + 1), 'base64');
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
