/**
 * The response cache's key, black-box: request A, then request B, to a gateway with the
 * response cache and to one without it. B may be answered from the cache (`x-cache: hit`) only
 * when A and B execute the same operation with the same variables, both unambiguously, and its
 * answer is then the one the gateway without the cache gives; two well-formed requests of the
 * same operation however laid out (whitespace, commas, comments, key order, GET or JSON POST)
 * do share the entry. Ambiguous requests (duplicate parameters, form posts) are never served
 * from the cache nor stored in it.
 */
import fc from 'fast-check';
import { parse, print } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type Harness } from '../helpers/gateway.js';
import { send, type RawHttpRequest, type RawHttpResponse } from './http-requests.js';
import { compactText, fuzzParameters } from './settings.js';

/** An operation: its text (laid out anew for each request), variables and operation name. */
interface Operation {
  text: string;
  variables: Record<string, unknown>;
  operationName?: string;
}

/** Operations that differ in ways a careless key misses: variables, string literals, comments, the operation run. */
const OPERATIONS: Operation[] = [
  { text: 'query Cities($size: Int) { cities(pageSize: $size) { total items { code name } } }', variables: { size: 1 } },
  { text: 'query Cities($size: Int) { cities(pageSize: $size) { total items { code name } } }', variables: { size: 3 } },
  { text: 'query City($c: String!) { city(code: $c) { code name } }', variables: { c: 'BJ' } },
  { text: 'query City($c: String!) { city(code: $c) { code name } }', variables: { c: 'SH' } },
  { text: '{ city(code: "S  H") { code } }', variables: {} },
  { text: '{ city(code: "S H") { code } }', variables: {} },
  { text: '{ product(goodsCode: "G00001") { productName # goodsCode\n } }', variables: {} },
  { text: '{ product(goodsCode: "G00001") { productName # \n goodsCode } }', variables: {} },
  { text: 'query P($page: Int, $size: Int) { products(page: $page, pageSize: $size) { total items { goodsCode } } }', variables: { page: 1, size: 2 } },
  { text: 'query P($page: Int, $size: Int) { products(page: $page, pageSize: $size) { total items { goodsCode } } }', variables: { page: 2, size: 1 } },
  { text: 'query Two($c: String!) { city(code: $c) { code } } query Other { cities(pageSize: 1) { total } }', variables: { c: 'BJ' }, operationName: 'Two' },
  { text: 'query Two($c: String!) { city(code: $c) { code } } query Other { cities(pageSize: 1) { total } }', variables: { c: 'BJ' }, operationName: 'Other' },
];

type Encoding = 'json' | 'jsonReordered' | 'get' | 'variablesAsString' | 'getDuplicateQuery' | 'getDuplicateVariables' | 'form';

/** Encodings whose parameters are unambiguous and valid: the operation they run is clear. */
const CLEAR: Encoding[] = ['json', 'jsonReordered', 'get'];

interface Plan {
  operation: number;
  encoding: Encoding;
  /** Separators between tokens (whitespace, commas, comments), reused in turn. */
  separators: string[];
  /** Reverse the order of the variables' keys. */
  reverseKeys: boolean;
  /** The other operation a duplicate parameter carries. */
  other: number;
}

const SEPARATORS = [' ', ' ', '  ', '\n', '\t', ' , ', ',', ' # note\n', '\n# { "x" }\n', '\r\n'];

const plan: fc.Arbitrary<Plan> = fc.record({
  operation: fc.nat({ max: OPERATIONS.length - 1 }),
  encoding: fc.constantFrom<Encoding>('json', 'json', 'jsonReordered', 'get', 'get', 'variablesAsString', 'getDuplicateQuery', 'getDuplicateVariables', 'form'),
  separators: fc.array(fc.constantFrom(...SEPARATORS), { minLength: 1, maxLength: 6 }),
  reverseKeys: fc.boolean(),
  other: fc.nat({ max: OPERATIONS.length - 1 }),
});

const SHARING_EXAMPLE: Plan = { operation: 0, encoding: 'json', separators: [' '], reverseKeys: false, other: 1 };

let cached: Harness;
let uncached: Harness;

beforeAll(async () => {
  cached = await startGateway({ env: { LOG_LEVEL: 'warn' } });
  uncached = await startGateway({ sharedMock: cached.mock, env: { LOG_LEVEL: 'warn', RESPONSE_CACHE_MAX_BYTES: '0' } });
});

afterAll(async () => {
  await uncached?.close();
  await cached?.close();
});

describe('the response cache key', () => {
  it('serves B from the cache only when A ran the same operation with the same variables, and then as the gateway without a cache would', async () => {
    const pair = fc.tuple(plan, plan, fc.constantFrom('same', 'sibling', 'any')).map(([a, b, relation]) => {
      // Operations come in pairs that differ in one detail: B asks for A's operation, its
      // sibling, or any, a third of the time each.
      const operation = relation === 'same' ? a.operation : relation === 'sibling' ? a.operation ^ 1 : b.operation;
      const second = { ...b, operation };
      return Object.assign([a, second] as const, { [fc.toStringMethod]: () => `A: ${describePlan(a)}\nB: ${describePlan(second)}` });
    });
    let hits = 0;
    await fc.assert(
      fc.asyncProperty(pair, async ([a, b]) => {
        // Every stored answer expires before the next case: each case starts from an empty cache.
        cached.clock.advance(3 * 3600_000);
        const first = await send(cached.url, request(a));
        const second = await send(cached.url, request(b));
        const reference = await send(uncached.url, request(b));
        const hit = second.headers['x-cache'] === 'hit';
        if (hit) hits += 1;
        const same = CLEAR.includes(a.encoding) && CLEAR.includes(b.encoding) && executed(a) === executed(b);
        if (hit) {
          expect(same, `B was a hit, yet A and B do not run the same operation unambiguously; B got ${compactText(second.text, 300)}`).toBe(true);
          expect(answerOf(second), 'a hit must answer what the gateway without the cache answers').toEqual(answerOf(reference));
        }
        const storable = first.status === 200 && !JSON.parse(first.text).errors;
        if (same && storable) expect(hit, `A and B run the same operation, yet B missed the entry A stored (${first.headers['x-cache']})`).toBe(true);
      }),
      // First a pair that must share an entry (a JSON POST, then a GET laid out otherwise), so that
      // even a short run proves the cache serves hits at all.
      { ...fuzzParameters<[readonly [Plan, Plan]]>(40), examples: [[[SHARING_EXAMPLE, { ...SHARING_EXAMPLE, encoding: 'get', separators: ['\n', ' , '] }]]] },
    );
    expect(hits, 'the cache served no hit at all: the property proved nothing').toBeGreaterThan(0);
  });
});

/** What the operation of a clear request is, as graphql-js prints it, with its variables in key order. */
function executed(p: Plan): string {
  const op = OPERATIONS[p.operation]!;
  const variables = Object.fromEntries(Object.entries(op.variables).sort(([x], [y]) => x.localeCompare(y)));
  return `${print(parse(op.text))}\n${op.operationName ?? ''}\n${JSON.stringify(variables)}`;
}

const ACCEPT: [string, string] = ['accept', 'application/graphql-response+json'];

function request(p: Plan): RawHttpRequest {
  const op = OPERATIONS[p.operation]!;
  const other = OPERATIONS[p.other]!;
  const query = layOut(op.text, p.separators);
  const keys = Object.keys(op.variables);
  const variables = Object.fromEntries((p.reverseKeys ? keys.reverse() : keys).map((k) => [k, op.variables[k]]));
  const name = op.operationName ? { operationName: op.operationName } : {};
  const json = (body: unknown): RawHttpRequest => ({ method: 'POST', path: '/graphql', headers: [['content-type', 'application/json'], ACCEPT], body: Buffer.from(JSON.stringify(body)) });
  const search = (pairs: Array<[string, string]>) => `/graphql?${new URLSearchParams(pairs)}`;
  const params: Array<[string, string]> = [['query', query], ['variables', JSON.stringify(variables)], ...(op.operationName ? [['operationName', op.operationName] as [string, string]] : [])];
  switch (p.encoding) {
    case 'json': return json({ query, variables, ...name });
    case 'jsonReordered': return json({ ...name, variables, query });
    case 'variablesAsString': return json({ query, variables: JSON.stringify(variables), ...name });
    case 'get': return { method: 'GET', path: search(params), headers: [ACCEPT] };
    case 'getDuplicateQuery': return { method: 'GET', path: search([...params, ['query', other.text]]), headers: [ACCEPT] };
    case 'getDuplicateVariables': return { method: 'GET', path: search([...params, ['variables', JSON.stringify(other.variables)]]), headers: [ACCEPT] };
    case 'form': return { method: 'POST', path: '/graphql', headers: [['content-type', 'application/x-www-form-urlencoded'], ACCEPT], body: Buffer.from(new URLSearchParams(params).toString()) };
  }
}

/** `text` with the whitespace between its tokens replaced by `separators` in turn; strings and comments kept. */
function layOut(text: string, separators: string[]): string {
  const tokens = text.match(/"(?:[^"\\]|\\.)*"|#[^\n]*\n|[^\s"]+/g) ?? [];
  let out = '';
  tokens.forEach((token, i) => {
    out += token;
    if (i < tokens.length - 1 && !token.startsWith('#')) out += separators[i % separators.length];
  });
  return out;
}

function answerOf(response: RawHttpResponse): unknown {
  try {
    const { data, errors } = JSON.parse(response.text);
    return { status: response.status, data, errors };
  } catch {
    return { status: response.status, text: response.text };
  }
}

function describePlan(p: Plan): string {
  const req = request(p);
  return `${p.encoding} of operation ${p.operation}: ${req.method} ${compactText(decodeURIComponent(req.path), 300)} ${req.body ? compactText(req.body.toString(), 300) : ''}`;
}
