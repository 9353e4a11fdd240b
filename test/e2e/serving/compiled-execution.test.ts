/**
 * Compiled execution (EXECUTION_COMPILED) answers what yoga's executor answers, byte for byte but
 * for the order of an object's fields (see `same`): two gateways on one mock, one interpreting
 * and one compiling, each request sent to both in turn (so their caches, breakers and the mock's
 * faults stay in step), the response cache off so both execute. graphql-jit is spied on to show
 * that compiled queries really serve, compiled once per document and operation.
 */
import type * as Jit from 'graphql-jit';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createSchema, createYoga, type Plugin } from 'graphql-yoga';
import { createMockUpstream, type MockUpstream } from '../../../src/mock-upstream/index.js';
import { maskError } from '../../../src/graph/mask-error.js';
import { useCompiledExecution } from '../../../src/plugins/serving/use-compiled-execution.js';
import { createCompiledExecution } from '../../../src/graph/execution/compile.js';
import { encodeId } from '../../../src/graph/ids.js';
import { startGateway, type Harness } from '../../helpers/gateway.js';
import { SITE_DEFERRED } from './incremental-queries.js';

// A spy, not a fake: the real compiler runs; the test counts compilations and compiled runs.
const jit = vi.hoisted(() => ({ compiled: 0, runs: 0 }));
vi.mock('graphql-jit', async (importOriginal) => {
  const original = await importOriginal<typeof Jit>();
  const compileQuery = (...args: Parameters<typeof original.compileQuery>) => {
    const query = original.compileQuery(...args);
    if (!original.isCompiledQuery(query as Parameters<typeof original.isCompiledQuery>[0]) || !('query' in query)) return query;
    jit.compiled += 1;
    const run = query.query;
    return { ...query, query: (...runArgs: Parameters<typeof run>) => ((jit.runs += 1), run(...runArgs)) };
  };
  return { ...original, compileQuery };
});

const ENV = { RESPONSE_CACHE_MAX_BYTES: '0', UPSTREAM_RETRIES: '0' };

interface Request {
  query: string;
  variables?: Record<string, unknown>;
  operationName?: string;
}

interface Pair {
  interpreted: Harness;
  compiled: Harness;
}

async function startPair(mock: MockUpstream): Promise<Pair> {
  return {
    interpreted: await startGateway({ sharedMock: mock, env: { ...ENV, EXECUTION_COMPILED: 'false' } }),
    compiled: await startGateway({ sharedMock: mock, env: { ...ENV, EXECUTION_COMPILED: 'true' } }),
  };
}

/**
 * Sends `request` to the interpreting gateway, then to the compiling one, twice (the second
 * time, the compiling one runs the document compiled), and expects the same status and the same
 * bytes each time but for one thing: yoga's executor writes an object's fields in the order their
 * values resolved, a field whose resolver waited after the others, where graphql-jit writes them
 * in the order of the query, as the spec asks. So the interpreter's `data` is put in the compiled
 * answer's field order before the comparison; everything else (values, `errors` with their order,
 * messages, locations, paths and codes, `extensions`, the order of the top-level keys) must match
 * byte for byte. Answers the compiled second answer.
 */
async function same(pair: Pair, request: Request): Promise<any> {
  const first = await sameOnce(pair, request);
  const second = await sameOnce(pair, request);
  // On the compiling gateway the first answer is graphql-js's (a document is compiled when it
  // comes back) and the second the compiled query's: those two are the same bytes, field order too.
  expect(second.text).toBe(first.text);
  return second.answer;
}

async function sameOnce({ interpreted, compiled }: Pair, request: Request): Promise<{ answer: any; text: string }> {
  const answers: Array<{ status: number; text: string }> = [];
  for (const h of [interpreted, compiled]) {
    const response = await fetch(`${h.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
      body: JSON.stringify(request),
    });
    answers.push({ status: response.status, text: await response.text() });
  }
  const [before, after] = answers as [{ status: number; text: string }, { status: number; text: string }];
  const parsed = JSON.parse(before.text);
  expect(JSON.stringify(parsed)).toBe(before.text); // JSON.stringify wrote it: re-writing it changes nothing
  const compiledAnswer = JSON.parse(after.text);
  if ('data' in parsed) parsed.data = inOrderOf(parsed.data, compiledAnswer.data);
  expect({ status: after.status, text: after.text }).toEqual({ status: before.status, text: JSON.stringify(parsed) });
  return { answer: compiledAnswer, text: after.text };
}

/** `value` with each object's keys in the order of the same object in `model`, when both have the same keys. */
function inOrderOf(value: unknown, model: unknown): unknown {
  if (Array.isArray(value) && Array.isArray(model)) return value.map((item, i) => inOrderOf(item, model[i]));
  if (value === null || model === null || typeof value !== 'object' || typeof model !== 'object' || Array.isArray(model)) return value;
  const keys = Object.keys(model);
  const record = value as Record<string, unknown>;
  if (keys.length !== Object.keys(record).length || !keys.every((key) => key in record)) return value;
  return Object.fromEntries(keys.map((key) => [key, inOrderOf(record[key], (model as Record<string, unknown>)[key])]));
}

describe('compiled execution gives the interpreter’s answers', () => {
  let mock: MockUpstream;
  let pair: Pair;
  beforeAll(async () => {
    mock = await createMockUpstream({ catalog: { sites: 30, cities: 8, products: 40 } });
    pair = await startPair(mock);
  });
  afterAll(async () => {
    await pair?.interpreted.close();
    await pair?.compiled.close();
    await mock?.close();
  });

  it('on pages, nested lists, aliases, __typename and unknown keys', async () => {
    const site = mock.catalog.sites[3]!;
    const city = mock.catalog.cities[2]!;
    await same(pair, { query: '{ cities(page: 2, pageSize: 3) { __typename total page pageSize hasNextPage items { id cityId code name } } }' });
    const deep = await same(pair, {
      query: `{ sites(page: 1, pageSize: 5) { total hasNextPage items { __typename id code name state enabled lat lng images siteType
        gradeType openTime closeTime city { code name cityId } stockSummary { lanes emptyLanes totalStock }
        points { id code name imei site { code } cargoLanes { goodsCode productName stock guidePrice product { id goodsCode productName ipName guidePrice } } } } } }`,
    });
    expect(deep.data.sites.items[0].points[0].cargoLanes.length).toBeGreaterThan(0);
    const unknown = await same(pair, {
      query: `query($c: String!) { mine: site(code: $c) { code name t: __typename } city(code: "${city.code}") { code sites(pageSize: 2) { total items { code } } }
        noSite: site(code: "S999999") { code } noCity: city(code: "999999") { code } noProduct: product(goodsCode: "G999999") { goodsCode } }`,
      variables: { c: site.code },
    });
    expect(unknown.data).toMatchObject({ noSite: null, noCity: null, noProduct: null });
  });

  it('on node(id:) with fragments on the interface and its types', async () => {
    const site = mock.catalog.sites[5]!;
    const point = site.points[0]!;
    const product = mock.catalog.products[7]!;
    const ids = {
      city: encodeId('City', mock.catalog.cities[1]!.code), site: encodeId('Site', site.code), point: encodeId('Point', site.code, point.code),
      product: encodeId('Product', product.goodsCode), gone: encodeId('Site', 'S999999'),
    };
    const answer = await same(pair, {
      query: `query Nodes($city: ID!, $site: ID!, $point: ID!, $product: ID!, $gone: ID!) {
        city: node(id: $city) { ...Named ... on City { cityId } } site: node(id: $site) { ...Named ...SiteParts }
        point: node(id: $point) { ...Named ... on Point { site { ...SiteParts } cargoLanes { stock } } }
        product: node(id: $product) { __typename ... on Product { goodsCode totalStock } } gone: node(id: $gone) { id } }
        fragment Named on Node { __typename id ... on City { name } ... on Site { name } ... on Point { name } }
        fragment SiteParts on Site { code points { code } }`,
      variables: ids,
      operationName: 'Nodes',
    });
    expect(answer.data.point.__typename).toBe('Point');
    expect(answer.data.gone).toBeNull();
  });

  it('on variables with defaults, skip and include, input objects and the catalog index', async () => {
    const site = mock.catalog.sites[1]!;
    const product = mock.catalog.products[2]!;
    const paged = 'query($page: Int = 2, $size: Int = 4) { products(page: $page, pageSize: $size) { page pageSize items { goodsCode costPrice } } }';
    await same(pair, { query: paged });
    await same(pair, { query: paged, variables: { size: 2 } });
    const conditional = `query($c: String!, $points: Boolean!, $hide: Boolean = false) { site(code: $c) { code name @skip(if: $hide)
      isOpen(at: "12:00") points @include(if: $points) { code cargoLanes @skip(if: $hide) { stock } } } }`;
    for (const variables of [{ c: site.code, points: true }, { c: site.code, points: false, hide: true }]) await same(pair, { query: conditional, variables });
    expect(jit.runs).toBeGreaterThan(0);
    const near = await same(pair, {
      query: `query($lat: Float!, $lng: Float!, $near: GeoInput) { sitesNear(lat: $lat, lng: $lng, radiusKm: 1000, first: 5) { distanceKm site { code } }
        searchProducts(first: 3) { goodsCode availability(near: $near, first: 2, inStockOnly: false) { stock distanceKm site { code } point { code } lane { stock } } } }`,
      variables: { lat: site.lat, lng: site.lng, near: { lat: site.lat, lng: site.lng } },
    });
    expect(near.data.sitesNear.length).toBeGreaterThan(0);
    await same(pair, { query: `{ product(goodsCode: "${product.goodsCode}") { goodsCode totalStock availability(first: 3) { stock } } }` });
  });

  it('on refusals of arguments and variables, and an unknown operation', async () => {
    const sites = await same(pair, { query: '{ sites(pageSize: 1000) { total } }' });
    expect(sites.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    await same(pair, { query: 'query($p: Int) { cities(pageSize: $p) { total } }', variables: { p: 'ten' } });
    await same(pair, { query: 'query($c: String!) { site(code: $c) { code } }' });
    await same(pair, { query: '{ node(id: "not-an-id") { id } }' });
    await same(pair, { query: 'query A { cities { total } } query B { products { total } }', operationName: 'C' });
  });

  it('lists fields in the query’s order, where the interpreter lists a field that waited last', async () => {
    const answer = await same(pair, { query: '{ cities(pageSize: 2) { items { id cityId code name } } }' });
    expect(Object.keys(answer.data.cities.items[0])).toEqual(['id', 'cityId', 'code', 'name']);
  });

  it('compiles a document when it comes back and reuses it for other variables, operation by operation', async () => {
    const before = { ...jit };
    const query = 'query One($c: String!) { site(code: $c) { code name } } query Two($g: String!) { product(goodsCode: $g) { goodsCode } }';
    for (const site of mock.catalog.sites.slice(0, 3)) await sameOnce(pair, { query, variables: { c: site.code }, operationName: 'One' });
    expect(jit).toEqual({ compiled: before.compiled + 1, runs: before.runs + 2 });
    for (const product of mock.catalog.products.slice(0, 2)) {
      const { answer } = await sameOnce(pair, { query, variables: { g: product.goodsCode }, operationName: 'Two' });
      expect(answer.data.product.goodsCode).toBe(product.goodsCode);
    }
    expect(jit).toEqual({ compiled: before.compiled + 2, runs: before.runs + 3 });
  });

  it('leaves @defer and @stream to the interpreter', async () => {
    const before = { ...jit };
    const response = await fetch(`${pair.compiled.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'multipart/mixed' },
      body: JSON.stringify({ query: SITE_DEFERRED, variables: { c: mock.catalog.sites[2]!.code } }),
    });
    expect(response.headers.get('content-type')).toMatch(/^multipart\/mixed/);
    expect(await response.text()).toContain('"hasNext":false');
    expect(jit).toEqual(before);
  });
});

describe('compiled execution gives the interpreter’s errors while the upstream fails', () => {
  let mock: MockUpstream;
  let pair: Pair;
  beforeAll(async () => {
    mock = await createMockUpstream({ catalog: { sites: 30, cities: 8, products: 40 } });
  });
  afterAll(() => mock?.close());
  // A fresh pair for each case: nothing cached, so each goes to the upstream as it fails.
  beforeEach(async () => {
    mock.clearFaults();
    pair = await startPair(mock);
  });
  afterEach(async () => {
    await pair.interpreted.close();
    await pair.compiled.close();
  });

  it('masks an upstream error in nullable fields alike, with its code, path and locations', async () => {
    for (const path of ['/api/product/detail', '/api/products/list']) mock.fault(path, { envelope: { code: 1001, msg: 'busy' } });
    const goodsCode = mock.catalog.products[3]!.goodsCode;
    const answer = await same(pair, { query: `{ a: product(goodsCode: "${goodsCode}") { goodsCode } cities(pageSize: 1) { total }\n  b: product(goodsCode: "${goodsCode}") { productName } }` });
    expect(answer.errors).toEqual([
      { message: 'The upstream answered with an error', locations: [{ line: 1, column: 3 }], path: ['a'], extensions: { code: 'UPSTREAM_ERROR', upstreamCode: 1001 } },
      { message: 'The upstream answered with an error', locations: [{ line: 2, column: 3 }], path: ['b'], extensions: { code: 'UPSTREAM_ERROR', upstreamCode: 1001 } },
    ]);
  });

  it('takes a failed non-null field’s null to the nearest nullable field, one error for each', async () => {
    mock.fault('/api/city/list', 'http503');
    const page = await same(pair, { query: '{ sites(page: 2, pageSize: 3) { items { code city { code cityId } } } }' });
    expect(page.data.sites.items.map((site: { city: unknown }) => site.city)).toEqual([null, null, null]);
    expect(page.errors.map((error: { path: unknown[] }) => error.path)).toEqual([0, 1, 2].map((i) => ['sites', 'items', i, 'city', 'cityId']));
    // Two failed fields under one nullable field: graphql-js reports the first to reach it.
    const site = await same(pair, { query: `{ site(code: "${mock.catalog.sites[4]!.code}") { code city { cityId again: cityId name } } }` });
    expect(site).toMatchObject({ data: { site: { city: null } }, errors: [{ path: ['site', 'city', 'cityId'], extensions: { code: 'UPSTREAM_UNAVAILABLE' } }] });
    expect(site.errors).toHaveLength(1);
    const root = await same(pair, { query: '{ products(pageSize: 2) { total } cities { total } }' });
    expect(root).toMatchObject({ data: null, errors: [{ path: ['cities'] }] });
  });

  it('reports an upstream value out of range (UPSTREAM_DATA_INVALID) alike', async () => {
    const site = mock.catalog.sites[20]!;
    for (const lane of site.points[0]!.cargolanes.slice(0, 2)) lane.stock = 2 ** 40;
    const answer = await same(pair, { query: `{ site(code: "${site.code}") { points { cargoLanes { goodsCode stock } } } }` });
    expect(answer.errors.map((error: any) => [error.extensions.code, error.path])).toEqual([0, 1].map((lane) => ['UPSTREAM_DATA_INVALID', ['site', 'points', 0, 'cargoLanes', lane, 'stock']]));
  });
});

describe('compiled execution’s errors, on a schema made to fail', () => {
  const schema = createSchema({
    typeDefs: 'type Query { required: String! nested: Outer count: Int fails: String }  type Outer { inner: String! other: Int }',
    resolvers: {
      Query: {
        required: () => null,
        nested: () => ({ other: 1 }),
        count: () => 'many',
        fails: () => { throw new TypeError('cannot read secret of undefined'); },
      },
    },
  });
  const yogaWith = (plugins: Plugin[]) => createYoga({ schema, maskedErrors: { maskError }, logging: false, plugins });

  it('are located and masked as the interpreter’s are (non-null violations, serialisation, thrown errors)', async () => {
    const body = JSON.stringify({ query: '{ nested { other inner again: inner } count fails \n required }' });
    const before = { ...jit };
    const texts = await Promise.all([false, true].map((on) => useCompiledExecution(createCompiledExecution(on))).map(async (plugin) => {
      const yoga = yogaWith([plugin]);
      const answer = () => yoga.fetch('http://yoga/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      await answer();
      return (await answer()).text();
    }));
    expect(jit.runs).toBe(before.runs + 1);
    expect(texts[1]).toBe(texts[0]);
    expect(JSON.parse(texts[0]!).errors.map((error: { path: string[] }) => error.path.join('.'))).toEqual(['nested.inner', 'count', 'fails', 'required']);
  });

  it('keeps compiled documents in a bounded LRU', async () => {
    const yoga = yogaWith([useCompiledExecution(createCompiledExecution(true, { maxDocuments: 1 }))]);
    const run = (query: string) => yoga.fetch('http://yoga/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) });
    const before = jit.compiled;
    for (const query of ['{ count }', '{ count }', '{ fails }', '{ fails }', '{ count }', '{ count }']) await run(query);
    // The second document pushed the first out: it was seen once more, then compiled again.
    expect(jit.compiled).toBe(before + 3);
  });
});
