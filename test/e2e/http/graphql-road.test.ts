/**
 * Every GraphQL request over HTTP travels one road (doors/graphql/): whatever it is (a GET, a POST
 * of any body read, a batch, an answer whole or in parts, a refusal at any step), the gateway
 * answers it itself, with its registry code, and yoga's HTTP layer reads none.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type Harness } from '../../helpers/gateway.js';
import { exchange, graphqlGet, jsonPost, type Exchange, type RawRequest } from './exchange.js';

const CATALOG = { catalog: { sites: 30, cities: 8, products: 40 } };
const CITIES = { query: `{ cities { total } }` };
const TWO = 'query A { cities { total } } query B { cities(pageSize: 1) { total } }';
const sha256Hex = (text: string) => createHash('sha256').update(text).digest('hex');

// Private: yoga's HTTP layer runs its onRequestParse hooks on every request it reads: a hook put first counts them.
function yogaReads(h: Harness): () => number {
  let count = 0;
  (h.gateway.yoga as unknown as { onRequestParseHooks: Array<() => void> }).onRequestParseHooks.unshift(() => void (count += 1));
  return () => count;
}

// Private: the codes of a JSON answer's errors (of each result, for a batch).
function codesOf(answer: Exchange): unknown[] {
  if (!/json/.test(answer.headers['content-type'] ?? '') || answer.body.length === 0) return [];
  const body = JSON.parse(answer.body.toString()) as unknown;
  const results = (Array.isArray(body) ? body : [body]) as Array<{ errors?: Array<{ extensions?: { code?: unknown } }> }>;
  return results.flatMap((result) => (result.errors ?? []).map((error) => error.extensions?.code));
}

describe('one road for every GraphQL request', () => {
  let h: Harness;
  let off: Harness;
  beforeAll(async () => {
    h = await startGateway({ mock: CATALOG, env: { BATCHING_LIMIT: '3' } });
    off = await startGateway({ mock: CATALOG, env: { CORS_ORIGINS: 'none' } });
  });
  afterAll(async () => {
    await h?.close();
    await off?.close();
  });

  it('answers each kind of request itself, with its status and code, and yoga reads none', async () => {
    const deferred = `{ product(goodsCode: "${h.mock.catalog.products[0]!.goodsCode}") { goodsCode ... @defer { productName } } }`;
    const reads = yogaReads(h);
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const cases: Array<[string, RawRequest, number, unknown[], string?]> = [
      ['a POST', jsonPost(CITIES), 200, []],
      ['a GET', graphqlGet(CITIES), 200, []],
      ['a HEAD', { ...graphqlGet(CITIES), method: 'HEAD' }, 200, []],
      ['a GET repeating a parameter (the first read)', { ...graphqlGet(CITIES), path: `/graphql?query=${encodeURIComponent(CITIES.query)}&query=x` }, 200, []],
      ['a GET with a parameter it does not read', { ...graphqlGet(CITIES), path: `/graphql?query=${encodeURIComponent(CITIES.query)}&foo=1` }, 200, []],
      ['a GET without parameters', { method: 'GET', headers: { accept: 'application/graphql-response+json' } }, 400, ['BAD_REQUEST']],
      ['a GET without parameters, to a JSON client', { method: 'GET', headers: { accept: 'application/json' } }, 200, ['BAD_REQUEST']],
      ['a GET whose variables are not JSON', { ...graphqlGet(CITIES), path: `/graphql?query=${encodeURIComponent(CITIES.query)}&variables=%7B` }, 400, ['BAD_REQUEST']],
      ['a body that is not JSON', jsonPost('{nope', { accept: 'application/json' }), 400, ['BAD_REQUEST']],
      ['a JSON number', jsonPost('5'), 400, ['BAD_REQUEST']],
      ['JSON null', jsonPost('null'), 400, ['BAD_REQUEST']],
      ['no query', jsonPost({}), 400, ['BAD_REQUEST']],
      ['a query that is a number', jsonPost({ query: 5 }), 400, ['BAD_REQUEST']],
      ['variables that are a string', jsonPost({ ...CITIES, variables: 'x' }), 400, ['BAD_REQUEST']],
      ['a parameter of no GraphQL request', jsonPost({ ...CITIES, foo: 1 }), 400, ['BAD_REQUEST']],
      ['an operation name that is a number', jsonPost({ ...CITIES, operationName: 5 }), 400, ['OPERATION_RESOLUTION_FAILURE']],
      ['two operations, one named', jsonPost({ query: TWO, operationName: 'B' }), 200, []],
      ['the same two operations, none named', jsonPost({ query: TWO }), 400, ['OPERATION_RESOLUTION_FAILURE']],
      ['a name no operation has', jsonPost({ query: TWO, operationName: 'C' }), 400, ['OPERATION_RESOLUTION_FAILURE']],
      ['APQ without version 1, its query run', jsonPost({ ...CITIES, extensions: { persistedQuery: { sha256Hash: sha256Hex(CITIES.query) } } }), 200, []],
      ['an empty form', jsonPost('', form), 400, ['BAD_REQUEST']],
      ['a form repeating a parameter', jsonPost(`query=${encodeURIComponent(CITIES.query)}&query=x`, form), 200, []],
      ['an empty GraphQL string', jsonPost('', { 'content-type': 'application/graphql' }), 400, ['GRAPHQL_PARSE_FAILED']],
      ['an application/graphql+json body', jsonPost(CITIES, { 'content-type': 'application/graphql+json' }), 200, []],
      ['an Accept nothing meets', jsonPost(CITIES, { accept: 'application/xml' }), 406, ['NOT_ACCEPTABLE']],
      ['a GET with an Accept nothing meets', graphqlGet(CITIES, { accept: 'application/xml' }), 406, ['NOT_ACCEPTABLE']],
      ['a subscription to a client of multipart only', jsonPost({ query: 'subscription { siteStock(code: "S000001") { code } }' }, { accept: 'multipart/mixed' }), 406, ['NOT_ACCEPTABLE']],
      ['a query to a client of multipart only', jsonPost(CITIES, { accept: 'multipart/mixed' }), 200, [], 'multipart/mixed; boundary="-"'],
      ['a query to a client of events only', jsonPost(CITIES, { accept: 'text/event-stream' }), 200, [], 'text/event-stream'],
      ['@defer to a client with an empty Accept (any type)', jsonPost({ query: deferred }, { accept: '' }), 200, [], 'multipart/mixed; boundary="-"'],
      ['@defer(if: false) to a client of multipart only', jsonPost({ query: deferred.replace('@defer', '@defer(if: false)') }, { accept: 'multipart/mixed' }), 200, [], 'multipart/mixed; boundary="-"'],
      ['a batch over BATCHING_LIMIT', jsonPost([CITIES, CITIES, CITIES, CITIES]), 413, ['BAD_REQUEST']],
      ['an empty batch', jsonPost([]), 200, []],
      ['a batch with @defer', jsonPost([CITIES, { query: deferred }]), 200, ['NOT_ACCEPTABLE']],
      ['a batch with an item that is no object', jsonPost([CITIES, 5]), 200, ['BAD_REQUEST']],
      ['a batch to a client of multipart only', jsonPost([CITIES], { accept: 'multipart/mixed' }), 200, [], 'multipart/mixed; boundary="-"'],
    ];
    for (const [name, request, status, codes, type] of cases) {
      const answer = await exchange(h, request);
      expect([name, answer.status, codesOf(answer), answer.line?.errorCodes ?? []]).toEqual([name, status, codes, [...new Set(codes)]]);
      if (type !== undefined) expect([name, answer.headers['content-type']]).toEqual([name, type]);
    }
    // Batching off (the default): any array is refused whole.
    const batch = await exchange(off, jsonPost([CITIES]));
    expect([batch.status, codesOf(batch)]).toEqual([400, ['BAD_REQUEST']]);
    expect(reads()).toBe(0);
  });

  it('refuses an Accept nothing meets before anything runs: no upstream call', async () => {
    const query = { query: `{ product(goodsCode: "${h.mock.catalog.products.at(-1)!.goodsCode}") { productName } }` };
    const before = h.mock.calls();
    const refused = await exchange(h, jsonPost(query, { accept: 'application/xml' }));
    expect([refused.status, codesOf(refused), refused.headers.accept, h.mock.calls()]).toEqual([
      406, ['NOT_ACCEPTABLE'], 'text/event-stream, multipart/mixed, application/graphql-response+json, application/json', before,
    ]);
    // The same query asked as JSON does reach the upstream: the count watches the right thing.
    expect((await exchange(h, jsonPost(query))).status).toBe(200);
    expect(h.mock.calls()).toBeGreaterThan(before);
  });

  it('never looks up nor stores a GraphQL string, an application/graphql+json body or a batch; the same query as JSON is', async () => {
    const query = { query: '{ cities(pageSize: 4) { total } }' };
    const kinds: Array<[string, RawRequest]> = [
      ['a GraphQL string', jsonPost(query.query, { 'content-type': 'application/graphql' })],
      ['application/graphql+json', jsonPost(query, { 'content-type': 'application/graphql+json' })],
      ['a batch', jsonPost([query])],
    ];
    for (const [name, request] of kinds) {
      const answers = [await exchange(h, request), await exchange(h, request)];
      expect([name, ...answers.map((answer) => [answer.status, answer.headers['x-cache']])]).toEqual([name, [200, undefined], [200, undefined]]);
    }
    const json = [await exchange(h, jsonPost(query)), await exchange(h, jsonPost(query))];
    expect(json.map((answer) => answer.headers['x-cache'])).toEqual(['miss', 'hit']);
  });

  it('stores a single answer in parts whole, and answers the next one from the store; never a GET it could read two ways', async () => {
    const parts = jsonPost({ query: '{ cities(pageSize: 2) { total } }' }, { accept: 'multipart/mixed' });
    const [made, stored] = [await exchange(h, parts), await exchange(h, parts)];
    expect([made.headers['x-cache'], stored.headers['x-cache'], stored.headers.etag]).toEqual(['miss', 'hit', made.headers.etag]);
    expect(stored.body.equals(made.body)).toBe(true);
    const twice = { ...graphqlGet(CITIES), path: `/graphql?query=${encodeURIComponent('{ cities(pageSize: 3) { total } }')}&query=x` };
    for (const answer of [await exchange(h, twice), await exchange(h, twice)]) expect([answer.headers['x-cache'], answer.headers['cache-control']]).toEqual([undefined, 'no-store']);
  });

  it('answers a preflight with CORS off with 204, without CORS headers', async () => {
    const answer = await exchange(off, { method: 'OPTIONS', headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST' } });
    expect([answer.status, answer.headers['access-control-allow-origin']]).toEqual([204, undefined]);
  });

  it("gives a browser's POST with Origin the CORS headers when CORS is on", async () => {
    const cors = await startGateway({ mock: CATALOG, env: { CORS_ORIGINS: 'https://shop.example' } });
    try {
      for (const origin of ['https://shop.example', 'https://elsewhere.example']) {
        const answer = await exchange(cors, jsonPost(CITIES, { origin }));
        expect([answer.status, answer.headers['access-control-allow-origin']]).toEqual([200, 'https://shop.example']);
      }
    } finally {
      await cors.close();
    }
  });

  it('serves a listed document asked for by id in allow-list mode, and refuses the rest', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'allow-list-'));
    const hash = sha256Hex(CITIES.query);
    writeFileSync(join(directory, 'list.json'), JSON.stringify({ [hash]: CITIES.query }));
    const listed = await startGateway({ mock: CATALOG, env: { PERSISTED_OPERATIONS_FILE: join(directory, 'list.json') } });
    try {
      const cases: Array<[string, RawRequest, number]> = [
        ['documentId', jsonPost({ documentId: hash }), 200],
        ['doc_id, stored', jsonPost({ doc_id: hash }), 200],
        ['the APQ extension', jsonPost({ extensions: { persistedQuery: { version: 1, sha256Hash: hash } } }), 200],
        ['a GET by id', { ...graphqlGet({}), path: `/graphql?documentId=${hash}` }, 200],
        ['a GET giving its id twice', { ...graphqlGet({}), path: `/graphql?documentId=${hash}&documentId=${hash}` }, 400],
        ['a query text', jsonPost(CITIES), 400],
        ['an id not listed', jsonPost({ documentId: sha256Hex('{ __typename }') }), 404],
        ['a GET of a query text', graphqlGet(CITIES), 400],
      ];
      for (const [name, request, status] of cases) expect([name, (await exchange(listed, request)).status]).toEqual([name, status]);
    } finally {
      await listed.close();
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('serves a subscription over server-sent events: its first event, then the client leaves', async () => {
    const aborted = new AbortController();
    const response = await fetch(`${h.url}/graphql`, {
      method: 'POST', signal: aborted.signal,
      headers: { accept: 'text/event-stream', 'content-type': 'application/json' },
      body: JSON.stringify({ query: `subscription { siteStock(code: "${h.mock.catalog.sites[0]!.code}") { code } }` }),
    });
    expect([response.status, response.headers.get('content-type'), response.headers.get('x-accel-buffering')]).toEqual([200, 'text/event-stream', 'no']);
    const reader = response.body!.getReader();
    let text = '';
    while (!text.includes('event: next')) text += new TextDecoder().decode((await reader.read()).value);
    expect(text).toContain(h.mock.catalog.sites[0]!.code);
    aborted.abort();
  });
});

describe('a query seen before', () => {
  it('executes with no envelop hook chain', async () => {
    const h = await startGateway({ mock: CATALOG, env: { RESPONSE_CACHE_MAX_BYTES: '0' } });
    try {
      // yoga's enveloped orchestrator (its hook chain) is made per request by getEnveloped.
      let envelopes = 0;
      const yoga = h.gateway.yoga as unknown as { getEnveloped: (...args: unknown[]) => unknown };
      const made = yoga.getEnveloped;
      yoga.getEnveloped = (...args) => ((envelopes += 1), made(...args));
      const query = 'query Product($code: String!) { product(goodsCode: $code) { goodsCode productName } }';
      const products = h.mock.catalog.products.slice(0, 5);
      for (const { goodsCode, productName } of products) {
        const answer = await exchange(h, jsonPost({ query, variables: { code: goodsCode } }));
        expect(JSON.parse(answer.body.toString())).toEqual({ data: { product: { goodsCode, productName } } });
      }
      // One, for the first parse and validation (so the count watches the right thing); each execution ran without one.
      expect(envelopes).toBe(1);
    } finally {
      await h.close();
    }
  });
});
