/**
 * The lean path (src/lean-path/) changes how a request is served, never what it answers: every
 * request below goes to a gateway with it and to one without it (side-by-side.ts), and the two
 * answers (status, headers, body bytes) and log lines must be the same.
 */
import { createHash } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { POINT_FIELDS, PRODUCT_FIELDS, SITE_FIELDS } from '../../helpers/expected.js';
import { exchange, graphqlGet, jsonPost, requestCounters, sameOnBoth, startPair, type Exchange, type Pair, type RawRequest } from './side-by-side.js';

const CATALOG = { catalog: { sites: 30, cities: 8, products: 40 } };
const PRODUCT = `query Product($g: String!) { product(goodsCode: $g) { ${PRODUCT_FIELDS} } }`;
const SITE = `query Site($c: String!) {
  site(code: $c) { ${SITE_FIELDS} city { code name cityId } ${POINT_FIELDS} stockSummary { lanes emptyLanes totalStock } isOpen(at: "10:00") } }`;
const TWO_OPERATIONS = `query Cities { cities(pageSize: 2) { items { code } } } query Products { products(pageSize: 2) { items { goodsCode } } }`;
const KEY = 'client-one-key-0123456789';
const OTHER_KEY = 'client-two-key-9876543210';
const CITIES = { query: `{ cities { total } }` };
const sha256Hex = (text: string) => createHash('sha256').update(text).digest('hex');
const siteId = (code: string) => Buffer.from(JSON.stringify(['Site', code])).toString('base64url');

/** Requests whose answers depend on nothing sent before them but the same requests on both sides. */
const BATTERY: Array<[string, (pair: Pair) => RawRequest]> = [
  ['a product, with variables', ({ mock }) => jsonPost({ query: PRODUCT, variables: { g: mock.catalog.products[3]!.goodsCode } })],
  ['a product, with a literal', ({ mock }) => jsonPost({ query: `{ product(goodsCode: "${mock.catalog.products[4]!.goodsCode}") { ${PRODUCT_FIELDS} } }` })],
  ['a page of products', () => jsonPost({ query: `{ products(page: 2, pageSize: 4) { total page pageSize hasNextPage items { ${PRODUCT_FIELDS} } } }` })],
  ['a site with its city, points, lanes and products', ({ mock }) => jsonPost({ query: SITE, variables: { c: mock.catalog.sites[7]!.code } })],
  ['a page of sites with their points', () => jsonPost({ query: `{ sites(page: 2, pageSize: 5) { total items { code city { code } ${POINT_FIELDS} } } }` })],
  ['the sites of a city, from the index', ({ mock }) => jsonPost({ query: `{ sites(cityCode: "${mock.catalog.cities[1]!.code}", enabledOnly: true) { total items { code } } }` })],
  ['a page of cities', () => jsonPost({ query: `{ cities(page: 2, pageSize: 3) { total page pageSize hasNextPage items { id cityId code name } } }` })],
  ['a city with its sites', ({ mock }) => jsonPost({ query: `query($c: String!) { city(code: $c) { code name sites(pageSize: 3) { total items { code } } } }`, variables: { c: mock.catalog.cities[2]!.code } })],
  ['node(id) of a site and of a missing site', ({ mock }) => jsonPost({
    query: `query($s: ID!, $m: ID!) { s: node(id: $s) { __typename id ... on Site { code name } } m: node(id: $m) { id } }`,
    variables: { s: siteId(mock.catalog.sites[3]!.code), m: siteId('NO-SUCH-SITE') },
  })],
  ['node(id) of garbage', () => jsonPost({ query: `{ node(id: "not-an-id") { id } }` })],
  ['sitesNear', ({ mock }) => jsonPost({ query: `{ sitesNear(lat: ${mock.catalog.sites[0]!.lat}, lng: ${mock.catalog.sites[0]!.lng}, radiusKm: 500, first: 5, enabledOnly: false) { distanceKm site { code } } }` })],
  ['searchProducts with availability and totalStock', () => jsonPost({ query: `{ searchProducts(first: 3) { goodsCode totalStock availability(first: 2, inStockOnly: false) { stock site { code } point { code } lane { goodsCode } } } }` })],
  ['availability near a point', ({ mock }) => jsonPost({ query: `query($g: String!) { product(goodsCode: $g) { availability(near: { lat: 31.2, lng: 121.4 }, first: 3) { distanceKm stock site { code } } } }`, variables: { g: mock.catalog.products[0]!.goodsCode } })],
  ['two operations, one chosen by operationName', () => jsonPost({ query: TWO_OPERATIONS, operationName: 'Products' })],
  ['two operations without operationName', () => jsonPost({ query: TWO_OPERATIONS })],
  ['an operationName the document lacks', () => jsonPost({ query: TWO_OPERATIONS, operationName: 'Nope' })],
  ['an unknown goods code', () => jsonPost({ query: PRODUCT, variables: { g: 'NO-SUCH-GOODS' } })],
  ['pageSize: 100000', () => jsonPost({ query: `{ sites(pageSize: 100000) { total } }` })],
  ['a variable of the wrong type', () => jsonPost({ query: PRODUCT, variables: { g: 5 } })],
  ['a missing required variable', () => jsonPost({ query: PRODUCT, variables: {} })],
  ['a query over the item limit', () => jsonPost({ query: `{ ${Array.from({ length: 15 }, (_, i) => `a${i}: searchProducts(first: 100) { availability(first: 1000) { stock } }`).join(' ')} }` })],
  ['a query deeper than MAX_QUERY_DEPTH', () => jsonPost({ query: `{ sites { items { points { site { points { site { points { code } } } } } } } }` })],
  ['an unknown field', () => jsonPost({ query: `{ cities { items { nope } } }` })],
  ['a syntax error', () => jsonPost({ query: `{ cities { items { code }` })],
  ['a mutation (the schema has none)', () => jsonPost({ query: `mutation { anything }` })],
  ['__typename only', () => jsonPost({ query: `{ __typename }` })],
  ['introspection', () => jsonPost({ query: `{ __schema { queryType { name } } __type(name: "Site") { name fields { name } } }` })],
  ['variables: null', () => jsonPost({ query: `{ cities(pageSize: 1) { total } }`, variables: null })],
  ['operationName: null', () => jsonPost({ query: `{ cities(pageSize: 2) { total } }`, operationName: null })],
  ['extra unknown body keys', () => jsonPost({ query: `{ cities(pageSize: 3) { total } }`, foo: 'bar' })],
  ['variables as a string', () => jsonPost({ query: PRODUCT, variables: JSON.stringify({ g: 'G00001' }) })],
  ['a query that is not a string', () => jsonPost({ query: 42 })],
  ['a body that is not JSON', () => jsonPost('{ "query": ')],
  ['an empty body', () => jsonPost('')],
  ['a JSON body that is not an object', () => jsonPost('"{ __typename }"')],
  ['a batch of two', () => jsonPost([{ query: `{ __typename }` }, { query: `{ cities(pageSize: 1) { total } }` }])],
  ['a batch over BATCHING_LIMIT', () => jsonPost(Array.from({ length: 4 }, () => ({ query: `{ __typename }` })))],
  ['a batch of one', () => jsonPost([{ query: `{ cities(pageSize: 18) { total } }` }])],
  ['a batch with a syntax error, an unknown field and a query', () => jsonPost([{ query: `{ cities {` }, { query: `{ nope }` }, { query: `{ cities(pageSize: 19) { total } }` }])],
  ['a batch with variables over MAX_VARIABLES_BYTES and a bad argument', () => jsonPost([{ query: PRODUCT, variables: { g: 'x'.repeat(20_000) } }, { query: `{ cities(page: 0) { total } }` }])],
  ['a batch with a mutation', () => jsonPost([{ query: `mutation { anything }` }, { query: `{ __typename }` }])],
  ['a batch of named operations, one chosen by operationName', () => jsonPost([{ query: TWO_OPERATIONS, operationName: 'Cities' }, { query: TWO_OPERATIONS, operationName: 'Products' }])],
  ['a batch with an operation that is not an object', () => jsonPost([{ query: `{ __typename }` }, 'x'])],
  ['an empty batch', () => jsonPost([])],
  ['variables over MAX_VARIABLES_BYTES', () => jsonPost({ query: PRODUCT, variables: { g: 'G00001', pad: 'x'.repeat(20_000) } })],
  ['a query over MAX_QUERY_BYTES', () => jsonPost({ query: `{ __typename } # ${'x'.repeat(40_000)}` })],
  ['Content-Type with a charset', () => jsonPost({ query: `{ cities(pageSize: 4) { total } }` }, { 'content-type': 'application/json; charset=utf-8' })],
  ['Content-Type application/graphql+json', () => jsonPost({ query: `{ cities(pageSize: 25) { total } }` }, { 'content-type': 'application/graphql+json' })],
  ['Content-Type application/graphql', () => jsonPost(`{ cities(pageSize: 5) { total } }`, { 'content-type': 'application/graphql' })],
  ['Content-Type text/plain', () => jsonPost({ query: `{ cities(pageSize: 6) { total } }` }, { 'content-type': 'text/plain' })],
  ['a form body', () => jsonPost(`query=${encodeURIComponent('{ cities(pageSize: 7) { total } }')}`, { 'content-type': 'application/x-www-form-urlencoded' })],
  ['a form body with variables and an operation name', ({ mock }) => jsonPost(new URLSearchParams({ query: PRODUCT, variables: JSON.stringify({ g: mock.catalog.products[9]!.goodsCode }), operationName: 'Product' }).toString(), { 'content-type': 'application/x-www-form-urlencoded' })],
  ['a form body with variables that are not JSON', () => jsonPost(`query=${encodeURIComponent(PRODUCT)}&variables=%7B`, { 'content-type': 'application/x-www-form-urlencoded' })],
  ['a form body with a syntax error', () => jsonPost(`query=${encodeURIComponent('{ cities {')}`, { 'content-type': 'application/x-www-form-urlencoded' })],
  ['an empty form body', () => jsonPost('', { 'content-type': 'application/x-www-form-urlencoded' })],
  ['a GraphQL string body asking for @defer in parts', ({ mock }) => jsonPost(`{ product(goodsCode: "${mock.catalog.products[10]!.goodsCode}") { goodsCode ... @defer { productName } } }`, { 'content-type': 'application/graphql', accept: 'multipart/mixed' })],
  ['an empty GraphQL string body', () => jsonPost('', { 'content-type': 'application/graphql' })],
  ['a POST with a query string', () => ({ ...jsonPost({ query: `{ cities(pageSize: 8) { total } }` }), path: '/graphql?x=1' })],
  ['an Origin header', () => jsonPost({ query: `{ cities(pageSize: 10) { total } }` }, { origin: 'https://shop.example' })],
  ['Content-Type in capitals', () => jsonPost({ query: `{ cities(pageSize: 12) { total } }` }, { 'content-type': 'APPLICATION/JSON' })],
  ['Content-Type with a space before its parameter', () => jsonPost({ query: `{ cities(pageSize: 13) { total } }` }, { 'content-type': 'application/json ; charset=utf-8' })],
  ['a PUT', () => ({ ...jsonPost({ query: `{ cities(pageSize: 14) { total } }` }), method: 'PUT' })],
  ['a DELETE without a body', () => ({ method: 'DELETE', headers: { accept: 'application/json' } })],
  ['a PATCH asking for HTML', () => ({ ...jsonPost({ query: `{ __typename }` }), method: 'PATCH', headers: { 'content-type': 'application/json', accept: 'text/html' } })],
  ['a body of no media type', () => ({ method: 'POST', headers: { accept: 'application/json' }, body: '{"query":"{ __typename }"}' })],
  ['extensions null', () => jsonPost({ query: `{ cities(pageSize: 15) { total } }`, extensions: null })],
  ['an extension other than APQ', () => jsonPost({ query: `{ cities(pageSize: 16) { total } }`, extensions: { tracing: true } })],
  ['APQ beside another extension', () => jsonPost({ query: `{ cities(pageSize: 20) { total } }`, extensions: { tracing: true, persistedQuery: { version: 1, sha256Hash: sha256Hex('{ cities(pageSize: 20) { total } }') } } })],
  ['APQ with a hash that is not its query\'s', () => jsonPost({ query: `{ cities(pageSize: 21) { total } }`, extensions: { persistedQuery: { version: 1, sha256Hash: sha256Hex('{ __typename }') } } })],
  ['APQ without version 1', () => jsonPost({ query: `{ cities(pageSize: 22) { total } }`, extensions: { persistedQuery: { sha256Hash: sha256Hex('{ cities(pageSize: 22) { total } }') } } })],
  ['extensions that are not an object', () => jsonPost({ query: `{ cities(pageSize: 23) { total } }`, extensions: 'x' })],
  ['a GET of an unknown APQ hash', () => graphqlGet({ extensions: { persistedQuery: { version: 1, sha256Hash: sha256Hex('{ cities(pageSize: 24) { total } }') } } })],
  ['a GET with extensions null', () => ({ ...graphqlGet({ query: `{ cities(pageSize: 17) { total } }` }), path: `/graphql?query=${encodeURIComponent('{ cities(pageSize: 17) { total } }')}&extensions=null` })],
  ['text outside ASCII', () => jsonPost({ query: `query($t: String) { searchProducts(text: $t, first: 2) { goodsCode } }`, variables: { t: '卡包 ✓' } })],
  ['a GET', ({ mock }) => graphqlGet({ query: PRODUCT, variables: { g: mock.catalog.products[5]!.goodsCode } })],
  ['a GET of a mutation', () => graphqlGet({ query: `mutation { anything }` })],
  ['@defer over multipart/mixed', ({ mock }) => jsonPost({ query: `query($g: String!) { product(goodsCode: $g) { goodsCode ... @defer { productName } } }`, variables: { g: mock.catalog.products[6]!.goodsCode } }, { accept: 'multipart/mixed' })],
  ['@defer(if: false) to a client accepting only JSON', ({ mock }) => jsonPost({ query: `query($g: String!) { product(goodsCode: $g) { goodsCode ... @defer(if: false) { productName } } }`, variables: { g: mock.catalog.products[11]!.goodsCode } })],
  ['@defer(if: $d) with d false, over multipart/mixed or JSON', ({ mock }) => jsonPost({ query: `query($g: String!, $d: Boolean!) { product(goodsCode: $g) { goodsCode ... @defer(if: $d) { productName } } }`, variables: { g: mock.catalog.products[12]!.goodsCode, d: false } }, { accept: 'multipart/mixed, application/json' })],
  ['@defer to a client accepting only JSON', ({ mock }) => jsonPost({ query: `query($g: String!) { product(goodsCode: $g) { goodsCode ... @defer { productName } } }`, variables: { g: mock.catalog.products[7]!.goodsCode } })],
];

/** `Accept` headers clients send: none, wildcards, each JSON type, Apollo Client's, urql's, the incremental ones. */
const ACCEPT_HEADERS: Array<string | undefined> = [
  undefined,
  '*/*',
  'application/json',
  'application/graphql-response+json',
  'application/graphql-response+json,application/json;q=0.9',
  'application/graphql-response+json, application/graphql+json, application/json, text/event-stream, multipart/mixed',
  'text/event-stream',
  'multipart/mixed',
  'application/json; charset=iso-8859-1',
  'application/json;charset=UTF-8',
  'APPLICATION/JSON',
  'application/*',
  '',
  'text/html',
];

describe('the lean path and yoga, side by side', () => {
  let pair: Pair;
  beforeAll(async () => {
    pair = await startPair({ UPSTREAM_RETRIES: '0', BATCHING_LIMIT: '3' }, CATALOG);
  });
  afterAll(() => pair.close());

  for (const [name, make] of BATTERY) {
    it(`answers ${name} the same, the first time and again`, async () => {
      // Again: with the document parsed, validated and perhaps its answer stored.
      await sameOnBoth(pair, make(pair));
      await sameOnBoth(pair, make(pair));
    });
  }

  it('answers @defer over server-sent events the same, its keep-alive comments apart (they come on a timer)', async () => {
    const query = `query($g: String!) { product(goodsCode: $g) { goodsCode ... @defer { productName } } }`;
    const request = jsonPost({ query, variables: { g: pair.mock.catalog.products[8]!.goodsCode } }, { accept: 'text/event-stream' });
    const [lean, yoga] = [await exchange(pair.lean, request), await exchange(pair.yoga, request)];
    const events = (side: Exchange) => side.body.toString('utf8').replaceAll(':\n\n', '');
    expect(events(lean)).toContain('event: complete');
    expect([lean.status, events(lean), lean.line?.operation]).toEqual([yoga.status, events(yoga), yoga.line?.operation]);
    for (const name of ['content-type', 'cache-control', 'x-accel-buffering', 'x-cache']) expect([name, lean.headers[name]]).toEqual([name, yoga.headers[name]]);
  });

  it('answers every Accept header the same, to a POST and a GET, a stored answer included', async () => {
    for (const accept of ACCEPT_HEADERS) {
      for (const request of [
        jsonPost({ query: `{ products(pageSize: 3) { items { goodsCode } } }` }, { accept: accept! }),
        // A GET asking for HTML is the explorer's page, no GraphQL request.
        ...(accept === 'text/html' ? [] : [graphqlGet({ query: `{ products(pageSize: 4) { items { goodsCode } } }` }, { accept: accept! })]),
      ]) {
        if (accept === undefined) delete request.headers!.accept;
        await sameOnBoth(pair, request);
        await sameOnBoth(pair, request);
      }
    }
  });

  it("echoes a client's x-request-id on both, and replaces an unsafe one on both", async () => {
    const { lean, yoga } = await sameOnBoth(pair, jsonPost({ query: `{ cities(pageSize: 9) { total } }` }, { 'x-request-id': 'client-id.1:2-3' }));
    expect([lean.headers['x-request-id'], yoga.headers['x-request-id']]).toEqual(['client-id.1:2-3', 'client-id.1:2-3']);
    const unsafe = await sameOnBoth(pair, jsonPost({ query: `{ cities(pageSize: 9) { total } }` }, { 'x-request-id': 'a b' }));
    expect([unsafe.lean.headers['x-request-id'], unsafe.yoga.headers['x-request-id']]).not.toContain('a b');
  });

  it('answers the same request twice the same: a miss, then a hit with the same ETag', async () => {
    const request = jsonPost({ query: PRODUCT, variables: { g: pair.mock.catalog.products[8]!.goodsCode } });
    const first = await sameOnBoth(pair, request);
    const second = await sameOnBoth(pair, request);
    expect([first.lean.headers['x-cache'], second.lean.headers['x-cache']]).toEqual(['miss', 'hit']);
    expect(second.lean.headers.etag).toBe(first.lean.headers.etag);
    expect(second.lean.line?.responseCache).toBe('hit');
  });

  it('serves an answer stored for a GET to a POST the same, and one stored for a POST to a GET, If-None-Match or not', async () => {
    const [g1, g2] = [pair.mock.catalog.products[11]!.goodsCode, pair.mock.catalog.products[12]!.goodsCode];
    await sameOnBoth(pair, graphqlGet({ query: PRODUCT, variables: { g: g1 } }));
    const { lean } = await sameOnBoth(pair, jsonPost({ query: PRODUCT, variables: { g: g1 } }));
    expect(lean.headers['x-cache']).toBe('hit');
    const etag = lean.headers.etag!;
    await sameOnBoth(pair, jsonPost({ query: PRODUCT, variables: { g: g1 } }, { 'if-none-match': etag }));
    await sameOnBoth(pair, jsonPost({ query: PRODUCT, variables: { g: g2 } }));
    await sameOnBoth(pair, graphqlGet({ query: PRODUCT, variables: { g: g2 } }));
  });

  it('answers automatic persisted queries the same: unknown hash, registration, hash alone', async () => {
    const query = `{ cities(pageSize: 11) { total } }`;
    const extensions = { persistedQuery: { version: 1, sha256Hash: sha256Hex(query) } };
    await sameOnBoth(pair, jsonPost({ extensions }));
    await sameOnBoth(pair, jsonPost({ query, extensions }));
    await sameOnBoth(pair, jsonPost({ extensions }));
    await sameOnBoth(pair, graphqlGet({ extensions }));
  });

  it('has counted every request above the same in its metrics', async () => {
    const [lean, yoga] = [await requestCounters(pair.lean), await requestCounters(pair.yoga)];
    expect(lean.length).toBeGreaterThan(10);
    expect(lean).toEqual(yoga);
  });

  it('answers a query over the upstream budget the same', async () => {
    const budget = await startPair({ MAX_UPSTREAM_CALLS_PER_OPERATION: '2' }, CATALOG);
    try {
      const pages = Array.from({ length: 5 }, (_, i) => `p${i}: sites(page: ${i + 1}, pageSize: 6) { items { ${POINT_FIELDS} } }`);
      const { lean } = await sameOnBoth(budget, jsonPost({ query: `{ ${pages.join(' ')} }` }));
      expect(lean.line?.errorCodes).toContain('UPSTREAM_BUDGET_EXCEEDED');
    } finally {
      await budget.close();
    }
  });
});

describe('upstream failures, side by side', () => {
  it('answers an upstream failure, a refusal (read as not found), stale data and a hang past the deadline the same', async () => {
    // A pair of its own: nothing in either side's data cache, so the site details are asked for.
    const pair = await startPair({ UPSTREAM_RETRIES: '0', CACHE_STALE_IF_ERROR_S: '120', REQUEST_TIMEOUT_MS: '1000', UPSTREAM_TIMEOUT_MS: '30000' }, CATALOG);
    try {
      const [a, b, c, d] = pair.mock.catalog.sites.map((site) => jsonPost({ query: SITE, variables: { c: site.code } }));
      pair.mock.fault('/api/site/detail', 'http503');
      const failed = await sameOnBoth(pair, a!);
      pair.mock.fault('/api/site/detail', { envelope: { code: 1001, msg: 'site not found' } });
      const refused = await sameOnBoth(pair, b!);
      pair.mock.fault('/api/site/detail', 'hang');
      const hung = await sameOnBoth(pair, c!);
      pair.mock.fault('/api/site/detail', null);
      await sameOnBoth(pair, d!);
      pair.mock.fault('/api/site/detail', 'http503');
      for (const side of [pair.lean, pair.yoga]) side.clock.advance(100_000);
      const stale = await sameOnBoth(pair, d!);

      expect(failed.lean.line?.errorCodes).toEqual(['UPSTREAM_UNAVAILABLE']);
      expect(JSON.parse(refused.lean.body.toString())).toEqual({ data: { site: null } });
      expect(stale.lean.line?.cacheStale).toBeGreaterThan(0);
      expect(hung.lean.line?.errorCodes).toContain('REQUEST_TIMEOUT');
    } finally {
      await pair.close();
    }
  });
});

describe('the guards, side by side', () => {
  let pair: Pair | undefined;
  afterEach(async () => {
    await pair?.close();
    pair = undefined;
  });

  it('refuses a missing, wrong or foreign-scheme API key and accepts a right one (x-api-key, Bearer) the same', async () => {
    pair = await startPair({ GATEWAY_API_KEYS: `${KEY},${OTHER_KEY}` }, CATALOG);
    const basic = `Basic ${Buffer.from(`u:${KEY}`).toString('base64')}`;
    const keys: Array<Record<string, string>> = [
      {}, { authorization: `Bearer ${KEY}x` }, { 'x-api-key': KEY.slice(0, -1) }, { authorization: basic },
      { 'x-api-key': KEY }, { authorization: `Bearer ${OTHER_KEY}` }, { authorization: `bearer ${KEY}` }, { authorization: `Bearer ${KEY}`, 'x-api-key': 'wrong-key-0123456789' },
    ];
    const statuses: number[] = [];
    for (const headers of keys) statuses.push((await sameOnBoth(pair, jsonPost(CITIES, headers))).lean.status);
    expect(statuses).toEqual([401, 401, 401, 401, 200, 200, 200, 401]);
  });

  it('counts a batch against RATE_LIMIT_PER_MINUTE the same: as many requests as operations, refused whole', async () => {
    pair = await startPair({ RATE_LIMIT_PER_MINUTE: '4', BATCHING_LIMIT: '3' }, CATALOG);
    const statuses: number[] = [];
    for (const size of [3, 2, 1]) statuses.push((await sameOnBoth(pair, jsonPost(Array.from({ length: size }, () => CITIES)))).lean.status);
    // The refused batch of two took its arrival's token: the last request finds none left.
    expect(statuses).toEqual([200, 429, 429]);
  });

  it('counts requests against RATE_LIMIT_PER_MINUTE the same: five in a row at 3 per minute', async () => {
    pair = await startPair({ RATE_LIMIT_PER_MINUTE: '3' }, CATALOG);
    const answers: Array<[number, unknown]> = [];
    for (let i = 0; i < 5; i += 1) {
      const { lean } = await sameOnBoth(pair, jsonPost(CITIES));
      answers.push([lean.status, lean.headers['retry-after']]);
    }
    expect(answers).toEqual([[200, undefined], [200, undefined], [200, undefined], [429, '20'], [429, '20']]);
    // Both refusals counted once, by reason, on each side.
    const [lean, yoga] = [await requestCounters(pair.lean), await requestCounters(pair.yoga)];
    expect(lean).toEqual(yoga);
    expect(lean).toContain('gateway_rejected_requests_total{reason="rate_limited"} 2');
  });

  it('gives the same CORS headers to an allowed origin, another origin, no origin and a preflight', async () => {
    pair = await startPair({ CORS_ORIGINS: 'https://shop.example' }, CATALOG);
    for (const origin of ['https://shop.example', 'https://elsewhere.example']) await sameOnBoth(pair, jsonPost(CITIES, { origin }));
    await sameOnBoth(pair, jsonPost(CITIES));
    // An answer in parts to a browser: the same caching, Vary and CORS headers.
    const deferred = `{ product(goodsCode: "${pair.mock.catalog.products[13]!.goodsCode}") { goodsCode ... @defer { productName } } }`;
    const parts = await sameOnBoth(pair, jsonPost({ query: deferred }, { origin: 'https://shop.example', accept: 'multipart/mixed' }));
    expect([parts.lean.headers['access-control-allow-origin'], parts.lean.headers['x-accel-buffering']]).toEqual(['https://shop.example', 'no']);
    const preflight = { 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' };
    const { lean } = await sameOnBoth(pair, { method: 'OPTIONS', headers: { origin: 'https://shop.example', ...preflight } });
    expect(lean.headers['access-control-allow-origin']).toBe('https://shop.example');
  });
});
