/**
 * The response cache keys on the operation that executes, never on its own reading of the
 * request: each case here made one query's answer stored under another query's key before.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startGateway, type Harness } from '../../helpers/gateway.js';

const CITIES = (size: number) => `{ cities(pageSize: ${size}) { items { code } } }`;
const CITY = `query City($c: String!) { city(code: $c) { code name } }`;

interface Answer {
  status: number;
  cache: string | null;
  body: any;
}

async function send(h: Harness, path: string, init: RequestInit = {}): Promise<Answer> {
  const response = await fetch(`${h.url}${path}`, init);
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: response.status, cache: response.headers.get('x-cache'), body };
}

function postJson(h: Harness, payload: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  return send(h, '/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof payload === 'string' ? payload : JSON.stringify(payload),
  });
}

function getQuery(h: Harness, search: string, headers: Record<string, string> = {}): Promise<Answer> {
  return send(h, `/graphql?${search}`, { headers });
}

const enc = encodeURIComponent;

describe('the response cache key', () => {
  let h: Harness;
  afterEach(() => h.close());

  it('is the query yoga runs when a URL repeats query: the first one, never stored', async () => {
    h = await startGateway();
    const twice = await getQuery(h, `query=${enc(CITIES(1))}&query=${enc(CITIES(3))}`);
    expect(twice.status).toBe(200);
    expect(twice.body.data.cities.items).toHaveLength(1);
    expect(twice.cache).toBeNull();
    const three = await postJson(h, { query: CITIES(3) });
    expect(three.cache).toBe('miss');
    expect(three.body.data.cities.items).toHaveLength(3);
  });

  it('is the variables yoga runs with when a URL repeats variables, never stored', async () => {
    h = await startGateway();
    const [bj, sh] = h.mock.catalog.cities.map((city) => city.code);
    const twice = await getQuery(h, `query=${enc(CITY)}&variables=${enc(JSON.stringify({ c: bj }))}&variables=${enc(JSON.stringify({ c: sh }))}`);
    expect(twice.body.data.city.code).toBe(bj);
    expect(twice.cache).toBeNull();
    const other = await postJson(h, { query: CITY, variables: { c: sh } });
    expect(other.cache).toBe('miss');
    expect(other.body.data.city.code).toBe(sh);
  });

  it('is never made for a form-encoded POST, which yoga reads as a form', async () => {
    h = await startGateway();
    const form = await send(h, '/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `query=${enc(CITIES(1))}`,
    });
    expect(form.body.data.cities.items).toHaveLength(1);
    expect(form.cache).toBeNull();
    const again = await send(h, '/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `query=${enc(CITIES(1))}`,
    });
    expect(again.cache).toBeNull();
  });

  it('keeps a comment from swallowing a field: a newline ends it', async () => {
    h = await startGateway();
    const without = await postJson(h, { query: '{ cities(pageSize: 2) { items { name # code\n } } }' });
    const withCode = await postJson(h, { query: '{ cities(pageSize: 2) { items { name # \n code } } }' });
    expect(without.body.data.cities.items[0]).not.toHaveProperty('code');
    expect(withCode.cache).toBe('miss');
    expect(withCode.body.data.cities.items[0].code).toEqual(expect.any(String));
  });

  it('keeps whitespace inside string literals', async () => {
    h = await startGateway();
    const code = h.mock.catalog.cities[0]!.code;
    const spaced = `${code.slice(0, 1)}  ${code.slice(1)}`;
    const first = await postJson(h, { query: `{ city(code: "${spaced}") { code } }` });
    const second = await postJson(h, { query: `{ city(code: "${spaced.replace('  ', ' ')}") { code } }` });
    expect(first.body).toEqual(second.body);
    expect(second.cache).toBe('miss');
    const exact = await postJson(h, { query: `{ city(code: "${code}") { code } }` });
    expect(exact.body.data.city.code).toBe(code);
    expect(exact.cache).toBe('miss');
  });

  it('is shared by requests that lay the same operation out differently', async () => {
    h = await startGateway();
    const [first] = h.mock.catalog.cities.map((city) => city.code);
    const query = `query Two($c: String!, $n: Int) { city(code: $c) { code } cities(pageSize: $n) { total } }`;
    const stored = await postJson(h, { query, variables: { c: first, n: 2 } });
    expect(stored.cache).toBe('miss');
    const relaid = await getQuery(h, `query=${enc(`# a comment\nquery   Two($c:String!,$n:Int){city(code:$c){code}\n cities(pageSize:$n){total}}`)}&variables=${enc(JSON.stringify({ n: 2, c: first }))}`);
    expect(relaid.cache).toBe('hit');
    expect(relaid.body).toEqual(stored.body);
  });

  it('refuses variables sent as a JSON string on a hit exactly as on a miss', async () => {
    h = await startGateway();
    const code = h.mock.catalog.cities[0]!.code;
    expect((await postJson(h, { query: CITY, variables: { c: code } })).status).toBe(200);
    const asString = await postJson(h, { query: CITY, variables: JSON.stringify({ c: code }) });
    expect(asString.status).toBe(400);
    expect(asString.cache).toBeNull();
  });

  it('serves a hit only after CSRF prevention has accepted the request', async () => {
    h = await startGateway({ env: { CSRF_PREVENTION: 'true' } });
    const search = `query=${enc(CITIES(2))}`;
    expect((await getQuery(h, search)).status).toBe(403);
    const filled = await getQuery(h, search, { 'x-graphql-yoga-csrf': '1' });
    expect(filled.status).toBe(200);
    expect((await getQuery(h, search, { 'x-graphql-yoga-csrf': '1' })).cache).toBe('hit');
    const plain = await getQuery(h, search);
    expect(plain.status).toBe(403);
    expect(plain.cache).toBeNull();
    const text = await send(h, '/graphql', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: JSON.stringify({ query: CITIES(2) }) });
    expect(text.status).toBe(403);
  });

  it('never answers a text/plain POST from the cache without CSRF prevention either', async () => {
    h = await startGateway();
    await postJson(h, { query: CITIES(2) });
    const text = await send(h, '/graphql', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: JSON.stringify({ query: CITIES(2) }) });
    expect(text.status).toBe(415);
    expect(text.cache).toBeNull();
  });
});
