import { getIntrospectionQuery } from 'graphql';
import { afterEach, describe, expect, it } from 'vitest';
import { EXAMPLE_QUERY } from '../../../src/pages/explorer/example-query.js';
import { encodeId } from '../../../src/graph/ids.js';
import { startGateway, type Harness } from '../../helpers/gateway.js';
import { codesOf } from '../../helpers/raw-http.js';

/** `levels` nested `site { points { … } }` below a point, ending in `code`: 2 + `levels` deep. */
function pointCycle(levels: number): string {
  let selection = 'code';
  for (let level = levels; level > 0; level -= 1) {
    selection = level % 2 === 1 ? `site { ${selection} }` : `points { ${selection} }`;
  }
  return selection;
}

function pointId(h: Harness): string {
  const site = h.mock.catalog.sites.find((candidate) => candidate.points.length > 0)!;
  return encodeId('Point', site.code, site.points[0]!.code);
}

/** Expects a refusal with `code` that cost no upstream call and no token request. */
async function expectRefused(h: Harness, query: string, code: string, variables?: Record<string, unknown>) {
  const answer = await h.query(query, variables);
  expect(codesOf(answer)).toEqual([code]);
  expect(answer.data).toBeUndefined();
  expect(h.mock.calls()).toBe(0);
  expect(h.mock.calls('/oauth/token')).toBe(0);
  return answer;
}

async function expectAnswered(h: Harness, query: string, variables?: Record<string, unknown>) {
  const answer = await h.query(query, variables);
  expect(answer.errors).toBeUndefined();
  expect(answer.data).toBeTruthy();
  return answer;
}

describe('query depth', () => {
  let h: Harness;
  afterEach(() => h.close());

  it('refuses a point → site → points cycle one level deeper than the default limit of 6, before any upstream call', async () => {
    h = await startGateway();
    // node(1) → site(2) → points(3) → site(4) → points(5) → site(6) → code(7); the inline fragment adds no level.
    await expectRefused(h, `query ($id: ID!) { node(id: $id) { ... on Point { ${pointCycle(5)} } } }`, 'DEPTH_LIMIT_EXCEEDED', { id: pointId(h) });
  });

  it('answers the same cycle at the limit', async () => {
    h = await startGateway();
    await expectAnswered(h, `query ($id: ID!) { node(id: $id) { ... on Point { ${pointCycle(4)} } } }`, { id: pointId(h) });
  });

  it('does not skip the depth check for an operation named __schema', async () => {
    h = await startGateway();
    const query = `query __schema($id: ID!) { node(id: $id) { ... on Point { ${pointCycle(5)} } } }`;
    await expectRefused(h, query, 'DEPTH_LIMIT_EXCEEDED', { id: pointId(h) });
  });

  it('does not skip the depth check for a fragment named __schema', async () => {
    h = await startGateway();
    const query = `query ($id: ID!) { node(id: $id) { ...__schema } } fragment __schema on Point { ${pointCycle(5)} }`;
    await expectRefused(h, query, 'DEPTH_LIMIT_EXCEEDED', { id: pointId(h) });
  });

  it('counts fragments by the fields they hold, so a query split into named fragments has the same limit', async () => {
    h = await startGateway();
    const split = (site: string) => `query ($id: ID!) { node(id: $id) { ...P } } fragment P on Point { site { ...S } } fragment S on Site { ${site} }`;
    await expectRefused(h, split('points { site { points { site { code } } } }'), 'DEPTH_LIMIT_EXCEEDED', { id: pointId(h) });
    await expectAnswered(h, split('points { site { points { code } } }'), { id: pointId(h) });
  });

  it('takes its limit from MAX_QUERY_DEPTH', async () => {
    h = await startGateway({ env: { MAX_QUERY_DEPTH: '3' } });
    await expectRefused(h, `{ sites(pageSize: 1) { items { city { name } } } }`, 'DEPTH_LIMIT_EXCEEDED');
    await expectAnswered(h, `{ sites(pageSize: 1) { items { code } } }`);
  });
});

describe('the contract under the default limits', () => {
  let h: Harness;
  afterEach(() => h.close());

  it('answers every legitimate deep shape, the README examples, the GraphiQL example and GraphiQL introspection', async () => {
    h = await startGateway();
    const site = h.mock.catalog.sites.find((candidate) => candidate.points.length > 0)!;
    const siteId = encodeId('Site', site.code);
    await expectAnswered(h, `{ sites { items { points { cargoLanes { product { productName } } } } } }`);
    await expectAnswered(h, `query ($id: ID!) { node(id: $id) { ... on Site { points { cargoLanes { product { productName } } } } } }`, { id: siteId });
    await expectAnswered(h, `query ($id: ID!) { node(id: $id) { ... on Point { site { points { cargoLanes { product { ipName } } } } } } }`, { id: pointId(h) });
    await expectAnswered(h, `{ sites(page: 1, pageSize: 5) { total hasNextPage items { name enabled openTime closeTime city { name } points { name cargoLanes { stock guidePrice product { productName ipName } } } } } }`);
    await expectAnswered(h, `query ($code: String!) { site(code: $code) { id name address lat lng city { code name } points { id code imei } } }`, { code: site.code });
    await expectAnswered(h, `{ products(pageSize: 3) { items { id goodsCode productName guidePrice } } node(id: "WyJQcm9kdWN0IiwiRzAwMDAxIl0") { ... on Product { productName } } }`);
    await expectAnswered(h, EXAMPLE_QUERY);
    const introspection = await expectAnswered(h, getIntrospectionQuery({
      descriptions: true, specifiedByUrl: true, directiveIsRepeatable: true, schemaDescription: true, inputValueDeprecation: true, oneOf: true,
    }));
    expect(introspection.data.__schema.queryType.name).toBe('Query');
  });

  it('answers a query for every field of every type along every path at once', async () => {
    h = await startGateway();
    await expectAnswered(h, everything(pointId(h)));
  });
});

describe('aliases, tokens, directives and cost', () => {
  let h: Harness;
  afterEach(() => h.close());

  const aliased = (count: number) =>
    `{ ${Array.from({ length: count }, (_, i) => `a${i}: cities(pageSize: 1) { total }`).join(' ')} }`;
  const directives = (count: number) => `{ cities(pageSize: 1) { ${'total @include(if: true) '.repeat(count)}} }`;
  /** `{ cities(pageSize: 1) { total … } }`: 10 tokens plus one per `total`. */
  const tokens = (count: number) => `{ cities(pageSize: 1) { ${'total '.repeat(count - 10)}} }`;

  it('refuses 16 aliases (the default limit is 15) and answers 15', async () => {
    h = await startGateway();
    await expectRefused(h, aliased(16), 'ALIAS_LIMIT_EXCEEDED');
    await expectAnswered(h, aliased(15));
  });

  it('counts an alias named __typename on another field, as any alias', async () => {
    h = await startGateway();
    const query = aliased(15).replace(/ }$/, ' __typename: cities(pageSize: 2) { total } }');
    await expectRefused(h, query, 'ALIAS_LIMIT_EXCEEDED');
  });

  it('exempts only aliases on the __typename field itself (as Relay sends them)', async () => {
    h = await startGateway();
    const query = aliased(15).replace(/ }$/, ' __isNode: __typename kind: __typename }');
    const answer = await expectAnswered(h, query);
    expect(answer.data.kind).toBe('Query');
  });

  it('refuses 51 directives (the default limit is 50) and answers 50', async () => {
    h = await startGateway();
    await expectRefused(h, directives(51), 'DIRECTIVE_LIMIT_EXCEEDED');
    await expectAnswered(h, directives(50));
  });

  it('refuses a document one token over MAX_QUERY_TOKENS while parsing, and answers one at the limit', async () => {
    h = await startGateway({ env: { MAX_QUERY_TOKENS: '40' } });
    await expectRefused(h, tokens(41), 'TOKEN_LIMIT_EXCEEDED');
    await expectAnswered(h, tokens(40));
  });

  it('refuses a document of 1001 tokens by default', async () => {
    h = await startGateway();
    await expectRefused(h, tokens(1001), 'TOKEN_LIMIT_EXCEEDED');
  });

  it('refuses an operation costing more than MAX_QUERY_COST and answers one costing exactly that', async () => {
    // 2 for the object field `cities`, 1.5 for each scalar below it: 2 + 1.5 + 1.5 = 5.
    const query = `{ cities(pageSize: 1) { total page } }`;
    h = await startGateway({ env: { MAX_QUERY_COST: '4' } });
    await expectRefused(h, query, 'COST_LIMIT_EXCEEDED');
    await h.close();
    h = await startGateway({ env: { MAX_QUERY_COST: '5' } });
    await expectAnswered(h, query);
  });

  it('refuses the every-field query twice over under the default cost limit', async () => {
    h = await startGateway();
    await expectRefused(h, `{ ${everyField(pointId(h), 'a')} ${everyField(pointId(h), 'b')} }`, 'COST_LIMIT_EXCEEDED');
  });
});

describe('what a refusal says', () => {
  let h: Harness;
  afterEach(() => h.close());

  it('does not tell the limit by default', async () => {
    h = await startGateway();
    const answer = await h.query(`query ($id: ID!) { node(id: $id) { ... on Point { ${pointCycle(5)} } } }`, { id: pointId(h) });
    expect(answer.errors![0]!.message).toBe('The operation nests fields too deeply.');
    expect(JSON.stringify(answer)).not.toMatch(/\b[67]\b/);
  });

  it('tells the limit and the value found with EXPOSE_QUERY_LIMITS', async () => {
    h = await startGateway({ env: { EXPOSE_QUERY_LIMITS: 'true' } });
    const answer = await h.query(`query ($id: ID!) { node(id: $id) { ... on Point { ${pointCycle(5)} } } }`, { id: pointId(h) });
    expect(answer.errors![0]!.message).toBe('Query depth limit of 6 exceeded, found 7.');
    expect(answer.errors![0]!.extensions?.code).toBe('DEPTH_LIMIT_EXCEEDED');
  });
});

const PRODUCT = 'id goodsCode skuCode productName ipId ipName costPrice guidePrice orderPic';
const LANE = `goodsCode productName productPic stock guidePrice product { ${PRODUCT} }`;
const SITE = 'id code name state enabled openTime closeTime address addressExt lat lng images siteType gradeType city { id cityId code name }';
const POINT = 'id code name gradeType imei';

/** Every field of every type, along every path of the contract, in one query (cost about 610). */
function everything(pointId: string): string {
  return `{ ${everyField(pointId)} }`;
}

/** The root fields of `everything`, each aliased `<prefix><field>` when a prefix is given. */
function everyField(pointId: string, prefix = ''): string {
  const as = (field: string) => (prefix ? `${prefix}_${field}: ${field}` : field);
  return `
    ${as('cities')} { total page pageSize hasNextPage items { id cityId code name } }
    ${as('sites')} { total page pageSize hasNextPage items { ${SITE} points { ${POINT} site { ${SITE} } cargoLanes { ${LANE} } } } }
    ${as('products')} { total page pageSize hasNextPage items { ${PRODUCT} } }
    ${as('node')}(id: ${JSON.stringify(pointId)}) { id ... on Point { ${POINT} site { ${SITE} points { ${POINT} cargoLanes { ${LANE} } } } cargoLanes { ${LANE} } } }`;
}
