/**
 * `/demo`: the built example client page, as static files only (GET and HEAD; 405 otherwise).
 * The decoded, resolved path must stay inside the directory, or it is 404. HTML gets a content
 * security policy allowing only its own origin; hashed assets are immutable, index.html
 * revalidated; a 404 or 405 is the registry's refusal, `no-store`, so a cache keeps no absence past a rebuild. A file is
 * read again when its size or time of change differs, so a rebuild shows at once.
 */
import { readFile, stat } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { extname, resolve, sep } from 'node:path';
import { ROUTES } from '../../admission/routes.js';
import { refusal } from '../../admission/refusal.js';
import { refusalResponse } from '../../admission/refusal-writer.js';
import { createStaticAsset, IMMUTABLE, type StaticAsset } from './static-asset.js';
import { FETCH, type Page } from '../page.js';

/** Where the page lives; its build is made with this base (examples/web/vite.config.ts). */
export const DEMO_PAGE_PATH = ROUTES.demo;

const NOT_BUILT = 'The example page is not built: run `npm run build`, which builds it into dist/web.';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
};

/** The page's HTML may load and call nothing but its own origin (no CDN, no tracker). */
const CONTENT_SECURITY_POLICY =
  "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

type FetchAPI = { Response: typeof Response };

const NO_DEMO = 'The example page is served in demo mode only (npm start)';

/** Serves the built page in `directory` at /demo (identity only when `compress` is false); no `directory`: a 404 saying why. */
export function demoPage(directory: string | undefined, { compress = true } = {}): Page {
  const root = directory === undefined ? undefined : resolve(directory);
  const files = createFileMemo(compress);
  return ({ request, url }) => {
    const { pathname } = url;
    if (pathname !== DEMO_PAGE_PATH && !pathname.startsWith(`${DEMO_PAGE_PATH}/`)) return undefined;
    if (root === undefined) return refusalResponse(FETCH, refusal('NOT_FOUND', NO_DEMO));
    return answer(root, files, request, pathname.slice(DEMO_PAGE_PATH.length), FETCH);
  };
}

// Private: the response to `request` for `path` (what follows /demo: '', '/', '/assets/x.js' …).
async function answer(root: string, files: FileMemo, request: Request, path: string, fetchAPI: FetchAPI): Promise<Response> {
  const { method } = request;
  if (method !== 'GET' && method !== 'HEAD') {
    return refusalResponse(fetchAPI, refusal('METHOD_NOT_ALLOWED', `${method} is not allowed here: the page answers GET and HEAD.`, { allow: 'GET, HEAD' }));
  }
  if ((await fileStats(resolve(root, 'index.html'))) === undefined) return refusalResponse(fetchAPI, refusal('NOT_FOUND', NOT_BUILT));
  const file = fileOf(root, path);
  const stats = file === undefined ? undefined : await fileStats(file);
  if (file === undefined || stats === undefined) return refusalResponse(fetchAPI, refusal('NOT_FOUND'));
  // Whether vite hashed its name, from where it is (not how the path spelled it): `/assets/%2e%2e/index.html` is index.html.
  const asset = await files(file, stats, file.startsWith(resolve(root, 'assets') + sep));
  return asset.respond(request, fetchAPI);
}

type FileMemo = (file: string, stats: Stats, hashed: boolean) => Promise<StaticAsset>;

// Private: each existing file's StaticAsset, kept while its size and time of change hold.
function createFileMemo(compress: boolean): FileMemo {
  const memo = new Map<string, { version: string; asset: Promise<StaticAsset> }>();
  return (file, stats, hashed) => {
    const version = `${stats.size}:${stats.mtimeMs}`;
    let entry = memo.get(file);
    if (entry?.version !== version) {
      entry = { version, asset: readFile(file).then((body) => createStaticAsset(body, { ...optionsOf(file, hashed), compress })) };
      memo.set(file, entry);
      entry.asset.catch(() => memo.delete(file));
    }
    return entry.asset;
  };
}

// Private: the headers a file is answered with, from its extension and whether its name is hashed.
function optionsOf(file: string, hashed: boolean): { type: string; cacheControl: string; headers?: Record<string, string> } {
  const type = CONTENT_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream';
  const cacheControl = hashed ? IMMUTABLE : 'no-cache';
  return type.startsWith('text/html') ? { type, cacheControl, headers: { 'content-security-policy': CONTENT_SECURITY_POLICY } } : { type, cacheControl };
}

// Private: the file `path` names inside `root`, or `undefined` when it names none or leaves it.
function fileOf(root: string, path: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    return undefined;
  }
  if (decoded.includes('\0')) return undefined;
  const relative = decoded === '' || decoded === '/' ? 'index.html' : decoded.slice(1);
  const file = resolve(root, relative);
  return file.startsWith(root + sep) ? file : undefined;
}

async function fileStats(path: string): Promise<Stats | undefined> {
  const stats = await stat(path).catch(() => undefined);
  return stats?.isFile() ? stats : undefined;
}
