/**
 * The lean path is taken for the requests it may serve, and only for them: yoga's HTTP layer reads
 * none of those, and every other request (side-by-side.ts checks that both answers are the same).
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Harness } from '../../helpers/gateway.js';
import { graphqlGet, jsonPost, sameOnBoth, startPair, type RawRequest } from './side-by-side.js';

const CITIES = { query: `{ cities { total } }` };
const sha256Hex = (text: string) => createHash('sha256').update(text).digest('hex');

describe('which path serves a request', () => {
  // yoga's HTTP layer runs its onRequestParse hooks (its YogaServer's own array) on every request
  // it reads: a hook put first counts the requests yoga served.
  function yogaRequests(h: Harness): () => number {
    let count = 0;
    const server = h.gateway.yoga as unknown as { onRequestParseHooks: Array<() => void> };
    server.onRequestParseHooks.unshift(() => void (count += 1));
    return () => count;
  }

  it('serves an eligible POST or GET (its stored answer, automatic persisted queries, a batch, @defer, its refusals) itself, form and GraphQL string bodies, and the refusal of another media type or method; hands a repeated parameter and a single answer in parts to yoga', async () => {
    const pair = await startPair({ BATCHING_LIMIT: '3' }, { catalog: { sites: 30, cities: 8, products: 40 } });
    try {
      const [onLean, onYoga] = [yogaRequests(pair.lean), yogaRequests(pair.yoga)];
      const deferred = `{ product(goodsCode: "${pair.mock.catalog.products[0]!.goodsCode}") { goodsCode ... @defer { productName } } }`;
      const persisted = { persistedQuery: { version: 1, sha256Hash: sha256Hex(CITIES.query) } };
      const cases: Array<[string, RawRequest, number]> = [
        ['an eligible POST', jsonPost(CITIES), 0],
        ['the same, stored', jsonPost(CITIES), 0],
        ['a GET', graphqlGet(CITIES), 0],
        ['a GET repeating a parameter', { ...graphqlGet(CITIES), path: `/graphql?query=${encodeURIComponent(CITIES.query)}&query=x` }, 1],
        ['a batch', jsonPost([CITIES, CITIES]), 0],
        ['a batch over BATCHING_LIMIT', jsonPost([CITIES, CITIES, CITIES, CITIES]), 1],
        ['@defer', jsonPost({ query: deferred }, { accept: 'multipart/mixed' }), 0],
        ['@defer to a client accepting only JSON', jsonPost({ query: deferred }), 0],
        ['@defer with if: false, to a JSON client', jsonPost({ query: deferred.replace('@defer', '@defer(if: false)') }), 0],
        ['the same, stored', jsonPost({ query: deferred.replace('@defer', '@defer(if: false)') }), 0],
        ['@defer with if: false, to a client accepting only parts', jsonPost({ query: deferred.replace('@defer', '@defer(if: false)') }, { accept: 'multipart/mixed' }), 1],
        ['a query to a client accepting only parts', jsonPost(CITIES, { accept: 'multipart/mixed' }), 1],
        ['APQ: the hash and its query, registered', jsonPost({ ...CITIES, extensions: persisted }), 0],
        ['APQ: the hash alone', jsonPost({ extensions: persisted }), 0],
        ['APQ: a hash not registered', jsonPost({ extensions: { persistedQuery: { version: 1, sha256Hash: sha256Hex('{ __typename }') } } }), 0],
        ['APQ: a hash that is not its query\'s', jsonPost({ query: '{ __typename }', extensions: persisted }), 0],
        ['an extension yoga ignores', jsonPost({ ...CITIES, extensions: { tracing: true } }), 0],
        ['APQ without version 1', jsonPost({ ...CITIES, extensions: { persistedQuery: { sha256Hash: sha256Hex(CITIES.query) } } }), 1],
        ['a form body', jsonPost(`query=${encodeURIComponent(CITIES.query)}`, { 'content-type': 'application/x-www-form-urlencoded' }), 0],
        ['a GraphQL string body', jsonPost(CITIES.query, { 'content-type': 'application/graphql' }), 0],
        ['a form body repeating a parameter', jsonPost(`query=${encodeURIComponent(CITIES.query)}&query=x`, { 'content-type': 'application/x-www-form-urlencoded' }), 1],
        ['a text/plain body', jsonPost(JSON.stringify(CITIES), { 'content-type': 'text/plain' }), 0],
        ['a POST with a query string', { ...jsonPost(CITIES), path: '/graphql?x=1' }, 0],
        ['an application/graphql+json body', jsonPost(CITIES, { 'content-type': 'application/graphql+json' }), 1],
        ['a PUT', { ...jsonPost(CITIES), method: 'PUT' }, 0],
        ['a DELETE without a body', { method: 'DELETE' }, 0],
        ['a syntax error', jsonPost({ query: '{ cities {' }), 0],
        ['an unknown field', jsonPost({ query: '{ cities { nope } }' }), 0],
        ['a GET of an unknown field', graphqlGet({ query: '{ nope }' }), 0],
        ['a mutation', jsonPost({ query: 'mutation { anything }' }), 0],
        ['variables over MAX_VARIABLES_BYTES', jsonPost({ ...CITIES, variables: { pad: 'x'.repeat(20_000) } }), 0],
      ];
      for (const [name, request, onLeanSide] of cases) {
        const before = [onLean(), onYoga()];
        await sameOnBoth(pair, request);
        // With the lean path off, yoga reads every request: the count is watching the right thing.
        expect([name, onLean() - before[0]!, onYoga() - before[1]!]).toEqual([name, onLeanSide, 1]);
      }
    } finally {
      await pair.close();
    }
  });
  it("serves a browser's POST with Origin itself when CORS is on, with the CORS headers yoga's path gives", async () => {
    const pair = await startPair({ CORS_ORIGINS: 'https://shop.example' }, { catalog: { sites: 30, cities: 8, products: 40 } });
    try {
      const onLean = yogaRequests(pair.lean);
      for (const origin of ['https://shop.example', 'https://elsewhere.example']) {
        const { lean } = await sameOnBoth(pair, jsonPost(CITIES, { origin }));
        expect(lean.headers['access-control-allow-origin']).toBe('https://shop.example');
      }
      expect(onLean()).toBe(0);
    } finally {
      await pair.close();
    }
  });
  it('serves a listed document asked for by id itself in allow-list mode, and its refusals', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'allow-list-'));
    const hash = sha256Hex(CITIES.query);
    writeFileSync(join(directory, 'list.json'), JSON.stringify({ [hash]: CITIES.query }));
    const pair = await startPair({ PERSISTED_OPERATIONS_FILE: join(directory, 'list.json') }, { catalog: { sites: 30, cities: 8, products: 40 } });
    try {
      const onLean = yogaRequests(pair.lean);
      const cases: Array<[string, RawRequest, number]> = [
        ['documentId', jsonPost({ documentId: hash }), 200],
        ['doc_id, stored', jsonPost({ doc_id: hash }), 200],
        ['the APQ extension', jsonPost({ extensions: { persistedQuery: { version: 1, sha256Hash: hash } } }), 200],
        ['a GET by id', { ...graphqlGet({}), path: `/graphql?documentId=${hash}` }, 200],
        ['a query text', jsonPost(CITIES), 400],
        ['an id not listed', jsonPost({ documentId: sha256Hex('{ __typename }') }), 404],
        ['a GET of a query text', graphqlGet(CITIES), 400],
      ];
      for (const [name, request, status] of cases) {
        const before = onLean();
        const { lean } = await sameOnBoth(pair, request);
        expect([name, lean.status, onLean() - before]).toEqual([name, status, 0]);
      }
    } finally {
      await pair.close();
      rmSync(directory, { recursive: true, force: true });
    }
  });
  it('refuses a missing API key, a request over the rate limit and a GET without a CSRF header itself, POST or GET', async () => {
    const pair = await startPair({ GATEWAY_API_KEYS: 'client-one-key-0123456789', RATE_LIMIT_PER_MINUTE: '2', CSRF_PREVENTION: 'true' }, { catalog: { sites: 30, cities: 8, products: 40 } });
    try {
      const onLean = yogaRequests(pair.lean);
      const keyed = { 'x-api-key': 'client-one-key-0123456789' };
      const csrf = { 'graphql-require-preflight': '1' };
      const cases: Array<[string, RawRequest, number]> = [
        ['a POST without a key', jsonPost(CITIES), 401],
        ['a GET without a key', graphqlGet(CITIES), 401],
        ['a GET without a CSRF header', graphqlGet(CITIES, { accept: 'application/json', ...keyed }), 403],
        ['a POST with a key', jsonPost(CITIES, keyed), 200],
        ['a GET over the limit', graphqlGet(CITIES, { accept: 'application/json', ...keyed, ...csrf }), 429],
        ['a POST over the limit', jsonPost(CITIES, keyed), 429],
      ];
      for (const [name, request, status] of cases) {
        const { lean } = await sameOnBoth(pair, request);
        expect([name, lean.status]).toEqual([name, status]);
      }
      expect(onLean()).toBe(0);
    } finally {
      await pair.close();
    }
  });
  it('serves a subscription over server-sent events itself: its first event, then the client leaves', async () => {
    const pair = await startPair({}, { catalog: { sites: 30, cities: 8, products: 40 } });
    try {
      const onLean = yogaRequests(pair.lean);
      const aborted = new AbortController();
      const response = await fetch(`${pair.lean.url}/graphql`, {
        method: 'POST', signal: aborted.signal,
        headers: { accept: 'text/event-stream', 'content-type': 'application/json' },
        body: JSON.stringify({ query: `subscription { siteStock(code: "${pair.mock.catalog.sites[0]!.code}") { code } }` }),
      });
      expect([response.status, response.headers.get('content-type'), response.headers.get('x-accel-buffering')]).toEqual([200, 'text/event-stream', 'no']);
      const reader = response.body!.getReader();
      let text = '';
      while (!text.includes('event: next')) text += new TextDecoder().decode((await reader.read()).value);
      expect(text).toContain(pair.mock.catalog.sites[0]!.code);
      aborted.abort();
      expect(onLean()).toBe(0);
    } finally {
      await pair.close();
    }
  });
  it('executes a query it has seen before with no envelop hook chain', async () => {
    const pair = await startPair({ RESPONSE_CACHE_MAX_BYTES: '0' }, { catalog: { sites: 30, cities: 8, products: 40 } });
    // yoga's enveloped orchestrator (its hook chain) is made per request by getEnveloped.
    function envelopes(h: Harness): () => number {
      let count = 0;
      const yoga = h.gateway.yoga as unknown as { getEnveloped: (...args: unknown[]) => unknown };
      const made = yoga.getEnveloped;
      yoga.getEnveloped = (...args) => ((count += 1), made(...args));
      return () => count;
    }
    try {
      const onLean = envelopes(pair.lean);
      const query = 'query Product($code: String!) { product(goodsCode: $code) { goodsCode productName } }';
      const codes = pair.mock.catalog.products.slice(0, 5).map((product) => product.goodsCode);
      for (const code of codes) await sameOnBoth(pair, jsonPost({ query, variables: { code } }));
      // One, for the first parse and validation (so the count watches the right thing); each
      // execution ran without one, and answered as yoga's path did.
      expect(onLean()).toBe(1);
    } finally {
      await pair.close();
    }
  });
});
