import { readFileSync } from 'node:fs';
import { buildSchema, isInterfaceType, isObjectType } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARGUMENT_RULES } from '../../../src/graph/arguments/rules.js';
import { boundRuleOf } from '../../../src/graph/bindings.js';
import { echo } from '../../../src/graph/arguments/values.js';
import { encodeId } from '../../../src/graph/ids.js';
import { callsByPath, startGateway, type GraphQLResponse, type Harness } from '../../helpers/gateway.js';

// Private: a JSON POST with an operation name, answering the HTTP status too.
async function post(h: Harness, body: Record<string, unknown>): Promise<{ status: number; answer: GraphQLResponse<any> }> {
  const response = await fetch(`${h.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, answer: (await response.json()) as GraphQLResponse<any> };
}

const codes = (answer: GraphQLResponse) => answer.errors?.map((error) => error.extensions?.code);

describe('the argument rules', () => {
  it('have one rule for every field of the schema that takes arguments, and none for another', () => {
    const schema = buildSchema(readFileSync(new URL('../../../schema.graphql', import.meta.url), 'utf8'));
    const withArguments = Object.values(schema.getTypeMap())
      .filter((type) => !type.name.startsWith('__'))
      .flatMap((type) => (isObjectType(type) || isInterfaceType(type) ? Object.values(type.getFields()).map((field) => ({ type, field })) : []))
      .filter(({ field }) => field.args.length > 0)
      .map(({ type, field }) => `${type.name}.${field.name}`);
    // Written in rules.ts, or else given by a lookup's binding (graph/bindings.ts).
    const bound = withArguments.filter((coordinate) => !Object.hasOwn(ARGUMENT_RULES, coordinate) && boundRuleOf(coordinate) !== undefined);
    expect([...Object.keys(ARGUMENT_RULES), ...bound].sort()).toEqual(withArguments.sort());
  });

  it('echo at most a short prefix of a client value, with its length', () => {
    expect(echo(190)).toBe('190');
    expect(echo('25:00')).toBe('"25:00"');
    const long = echo('x'.repeat(3000));
    expect(long).toBe(`"${'x'.repeat(64)}"… (3000 characters)`);
  });
});

describe('arguments first', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startGateway();
  });
  afterAll(() => h.close());

  /** Asserts the answer is one BAD_USER_INPUT refusal and the upstream was never asked. */
  function expectRefusedForFree(answer: GraphQLResponse, message?: string): void {
    expect(answer.data ?? null).toBeNull();
    expect(codes(answer)).toEqual(['BAD_USER_INPUT']);
    if (message !== undefined) expect(answer.errors?.[0]?.message).toBe(message);
    expect(callsByPath(h.mock)).toEqual({});
    expect(h.mock.calls('/oauth/token')).toBe(0);
  }

  it('refuses a pageSize out of range as BAD_USER_INPUT naming it and its range, not as over the budget, literal or variable', async () => {
    h.mock.resetCounters();
    expectRefusedForFree(await h.query('{ sites(pageSize: 100000) { total } }'), 'pageSize must be from 1 to 100, but got: 100000');
    expectRefusedForFree(
      await h.query('query($s: Int) { sites(pageSize: $s) { total } }', { s: 100000 }),
      'pageSize must be from 1 to 100, but got: 100000',
    );
    expectRefusedForFree(await h.query('query($s: Int) { products(page: 1, pageSize: $s) { total } }', { s: 5000 }));
  });

  it('refuses a bad root argument before any upstream call, even when other fields of the operation are good', async () => {
    h.mock.resetCounters();
    const site = h.mock.catalog.sites[0]!;
    const answer = await h.query(
      `query($g: String!) { site(code: "${site.code}") { name } cities(pageSize: 1) { total } product(goodsCode: $g) { productName } }`,
      { g: 'G'.repeat(129) },
    );
    expectRefusedForFree(answer);
    expect(answer.errors?.[0]?.message).toMatch(/^goodsCode must be at most 128 characters, but got: "G{64}"… \(129 characters\)$/);
  });

  it('reports every bad argument of the operation at once, root and nested', async () => {
    h.mock.resetCounters();
    const answer = await h.query(`{
      city(code: "") { sites(page: 0) { total } }
      searchProducts(first: 0) { availability(first: 1001) { stock } }
    }`);
    expect(codes(answer)).toEqual(['BAD_USER_INPUT', 'BAD_USER_INPUT', 'BAD_USER_INPUT', 'BAD_USER_INPUT']);
    expect(callsByPath(h.mock)).toEqual({});
  });

  it('answers a variable of the wrong type with the coercion error, HTTP 400, BAD_USER_INPUT, nothing logged as an error', async () => {
    h.mock.resetCounters();
    const logged = h.logs.length;
    const availability = await post(h, {
      query: 'query($c: String) { product(goodsCode: "G00001") { availability(cityCode: $c) { stock } } }',
      variables: { c: 123 },
    });
    expect(availability.status).toBe(400);
    expect(codes(availability.answer)).toEqual(['BAD_USER_INPUT']);
    expect(availability.answer.errors?.[0]?.message).toBe('Variable "$c" got invalid value 123; String cannot represent a non string value: 123');
    const isOpen = await post(h, {
      query: 'query($at: String) { site(code: "S000001") { isOpen(at: $at) } }',
      variables: { at: 1230 },
    });
    expect(isOpen.status).toBe(400);
    expect(codes(isOpen.answer)).toEqual(['BAD_USER_INPUT']);
    expect(callsByPath(h.mock)).toEqual({});
    const errors = h.logs.slice(logged).filter((line) => (JSON.parse(line) as { level: number }).level >= 50);
    expect(errors).toEqual([]);
  });

  it('cuts the coercion error of a long value short', async () => {
    const { status, answer } = await post(h, {
      query: 'query($n: Int) { cities(pageSize: $n) { total } }',
      variables: { n: 'x'.repeat(5000) },
    });
    expect(status).toBe(400);
    expect(answer.errors?.[0]?.message.length).toBeLessThan(200);
  });

  it('checks only the operation that runs, not the document’s others', async () => {
    h.mock.resetCounters();
    const query = 'query Good { cities(pageSize: 1) { total } } query Bad { city(code: "C1") { sites(page: 0) { total } } }';
    const good = await post(h, { query, operationName: 'Good' });
    expect(good.answer.errors).toBeUndefined();
    expect(good.answer.data.cities.total).toBe(h.mock.catalog.cities.length);
    const bad = await post(h, { query, operationName: 'Bad' });
    expect(codes(bad.answer)).toEqual(['BAD_USER_INPUT']);
    const fragments = 'fragment F on City { sites(pageSize: 0) { total } } query Good { cities(pageSize: 1) { total } } query Bad { city(code: "C1") { ...F } }';
    expect((await post(h, { query: fragments, operationName: 'Good' })).answer.errors).toBeUndefined();
    expect(codes((await post(h, { query: fragments, operationName: 'Bad' })).answer)).toEqual(['BAD_USER_INPUT']);
  });

  it('checks the codes inside a global id as site(code:) checks them, before any upstream call', async () => {
    h.mock.resetCounters();
    const siteId = encodeId('Site', 'x'.repeat(1000));
    expectRefusedForFree(await h.query(`{ node(id: "${siteId}") { id } }`));
    const pointId = encodeId('Point', h.mock.catalog.sites[0]!.code, ' ');
    expectRefusedForFree(await h.query('query($id: ID!) { node(id: $id) { id } }', { id: pointId }));
    expect(h.mock.callLog()).toEqual([]);
  });

  it('refuses an over-long id before decoding it, and echoes no more than a short prefix of any id', async () => {
    h.mock.resetCounters();
    const huge = encodeId('Site', 'x'.repeat(10_000));
    const answer = await h.query('query($id: ID!) { node(id: $id) { id } }', { id: huge });
    expectRefusedForFree(answer);
    expect(answer.errors?.[0]?.message).toBe(`id must be at most 2048 characters, but got: ${echo(huge)}`);
    expect(answer.errors?.[0]?.message.length).toBeLessThan(150);
    const junk = await h.query(`{ node(id: "${'!'.repeat(3000)}") { id } }`);
    expect(junk.errors?.[0]?.message.length).toBeLessThan(150);
    const notOurs = await h.query(`{ node(id: "${'A'.repeat(1000)}") { id } }`);
    expect(notOurs.errors?.[0]?.message).toBe(`id is not a valid global id, but got: "${'A'.repeat(64)}"… (1000 characters)`);
  });

  it('still answers good global ids', async () => {
    const site = h.mock.catalog.sites[0]!;
    const point = site.points[0]!;
    const { data, errors } = await h.query(`{
      s: node(id: "${encodeId('Site', site.code)}") { ... on Site { code } }
      p: node(id: "${encodeId('Point', site.code, point.code)}") { ... on Point { code } }
    }`);
    expect(errors).toBeUndefined();
    expect(data).toEqual({ s: { code: site.code }, p: { code: point.code } });
  });
});
