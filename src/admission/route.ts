/**
 * The admission's first two checks, path and media type, as every door applies them. GraphQL is
 * served on exactly one path (yoga would route any URL merely ending with the endpoint), and a
 * body is read only in the media types below (no multipart uploads in a read-only graph).
 */
import { refusal, type Refusal } from './refusal.js';
import { isRoute } from './routes.js';

/** The body media types a GraphQL request may have; a GET has none. */
export const READABLE_TYPES = 'application/json, application/graphql+json, application/graphql, application/x-www-form-urlencoded';

/** The refusal of a path the gateway serves nothing at (routes.ts), naming where GraphQL is; undefined for a route. */
export function pathRefusal(url: string, pathname: string, endpoint: string): Refusal | undefined {
  if (pathname === endpoint) return undefined;
  const routedAsGraphQL = url.endsWith(endpoint) || url.endsWith(`${endpoint}/`) || pathname === `${endpoint}/`;
  if (routedAsGraphQL) return refusal('NOT_FOUND', `GraphQL is served at ${endpoint} only`);
  return isRoute(pathname) ? undefined : refusal('NOT_FOUND', `Nothing is served here: GraphQL is at ${endpoint}`);
}

/** The refusal of a WebSocket upgrade to another path than `endpoint`: there is nothing else to upgrade to. */
export function upgradePathRefusal(pathname: string, endpoint: string): Refusal | undefined {
  return pathname === endpoint ? undefined : refusal('NOT_FOUND', `GraphQL over WebSocket is served at ${endpoint} only`);
}

/** The refusal of a body the gateway does not read, naming those it does. */
export const UNREADABLE_BODY: Refusal = refusal('UNSUPPORTED_MEDIA_TYPE', `The request body must be one of: ${READABLE_TYPES}; or send a GET`, { accept: READABLE_TYPES });

/** The refusal of another method than GET or POST on the GraphQL path, whatever its body. */
export const OTHER_METHOD: Refusal = refusal('METHOD_NOT_ALLOWED', 'GraphQL is served over GET and POST only', { allow: 'GET, POST' });

/** A path of these characters alone reads the same as a URL: nothing to resolve or decode. */
const PLAIN_PATH = /^\/[\w/-]*$/;

/** The path of a request's target as a URL reads it, or undefined when it reads none. */
export function pathOf(url: string | undefined): string | undefined {
  const target = url ?? '';
  const query = target.indexOf('?');
  const path = query < 0 ? target : target.slice(0, query);
  return PLAIN_PATH.test(path) ? path : urlOf(target)?.pathname;
}

/** A request's target as a URL, as the Fetch layer reads it (origin-form on localhost, or absolute-form); undefined when none. */
export function urlOf(target: string): URL | undefined {
  try {
    return target.startsWith('/') ? new URL(`http://localhost${target}`) : /^https?:\/\//i.test(target) ? new URL(target) : undefined;
  } catch {
    return undefined;
  }
}
