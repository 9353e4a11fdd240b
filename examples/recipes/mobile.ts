// needs: nothing but Node 18 or later (fetch, node:crypto)
/**
 * What Apollo Kotlin (`autoPersistedQueries()`: hashes over GET, documents over POST) and Apollo
 * iOS (`autoPersistQueries` with `useGETForQueries`) send, as plain fetch calls, to show the wire:
 * the hash alone over GET, then hash and query, then the hash alone again, which is answered with
 * a `Cache-Control` a CDN or the app's HTTP cache may keep; and `@defer` with the `Accept` header
 * both clients send, answered in `multipart/mixed` parts.
 */
import { createHash } from 'node:crypto';

/** Headers both clients add: the operation's name (which also passes CSRF_PREVENTION) and the app's. */
const APOLLO_HEADERS = { 'x-apollo-operation-name': 'Product', 'apollographql-client-name': 'recipe-app' };
const ACCEPT = 'multipart/mixed;deferSpec=20220824, application/json';

const PRODUCT = 'query Product($code: String!) { product(goodsCode: $code) { id productName guidePrice } }';
const DEFERRED = 'query Site($code: String!) { site(code: $code) { code name ... @defer { points { code } } } }';

export async function run(url: string) {
  const variables = JSON.stringify({ code: 'G00001' });
  const hash = createHash('sha256').update(PRODUCT).digest('hex');
  const extensions = JSON.stringify({ persistedQuery: { version: 1, sha256Hash: hash } });
  const get = () => fetch(`${url}?${new URLSearchParams({ operationName: 'Product', variables, extensions })}`, {
    headers: { ...APOLLO_HEADERS, 'x-apollo-operation-id': hash, accept: ACCEPT },
  });

  // 1. The hash alone: the gateway does not know it yet (PERSISTED_QUERY_NOT_FOUND, no-store).
  const unknown = await get();
  // 2. The hash and the query (a POST, the clients' default for this retry): stored, answered.
  const registered = await fetch(url, {
    method: 'POST',
    headers: { ...APOLLO_HEADERS, 'x-apollo-operation-id': hash, accept: ACCEPT, 'content-type': 'application/json' },
    body: JSON.stringify({ operationName: 'Product', query: PRODUCT, variables: JSON.parse(variables), extensions: JSON.parse(extensions) }),
  });
  // 3. The hash alone again: now answered, with a Cache-Control a CDN or the client may keep.
  const known = await get();

  // @defer: the first part at once, the deferred fragment in a later part.
  const deferred = await fetch(url, {
    method: 'POST',
    headers: { ...APOLLO_HEADERS, 'x-apollo-operation-name': 'Site', accept: ACCEPT, 'content-type': 'application/json' },
    body: JSON.stringify({ operationName: 'Site', query: DEFERRED, variables: { code: 'S000001' } }),
  });

  return {
    unknown: { status: unknown.status, body: await unknown.json() },
    registered: { status: registered.status, body: await registered.json() },
    known: { status: known.status, cacheControl: known.headers.get('cache-control'), body: await known.json() },
    deferred: { contentType: deferred.headers.get('content-type'), parts: parts(await deferred.text()) },
  };
}

/** The JSON parts of a `multipart/mixed` body (each after a blank line, between boundaries). */
function parts(body: string): unknown[] {
  return body
    .split(/\r\n--[^\r\n]*/)
    .map((part) => part.slice(part.indexOf('\r\n\r\n') + 4).trim())
    .filter((json) => json.startsWith('{'))
    .map((json) => JSON.parse(json));
}
