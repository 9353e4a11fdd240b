/**
 * Persisted documents asked for by id in every client's way (docs "Persisted documents"):
 * `documentId` by GET and POST, Relay's `doc_id` and `id` against a Relay-format map, the same
 * id over WebSocket, and the list read again (gateway.reloadPersisted, what SIGHUP calls)
 * without dropping a request in flight, a bad file keeping the old list.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../../src/base/config/persisted-operations.js';
import { startGateway, type Harness } from '../../helpers/gateway.js';
import { startHeldGateway, type HeldGateway } from '../../helpers/held-upstream.js';
import { until } from '../../helpers/http.js';
import { codesOf, get, post } from '../../helpers/raw-http.js';
import { openRaw } from '../../helpers/websocket.js';

const dir = mkdtempSync(join(tmpdir(), 'vending-graph-documents-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function writeJson(name: string, content: unknown): string {
  const file = join(dir, name);
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

const CITIES = 'query Cities { cities(pageSize: 2) { items { code } } }';
const PRODUCTS = 'query Products { products(pageSize: 2) { items { goodsCode } } }';
const RELAY_ID = '5f1c0b6d3c5e9a7f2b8e4d1a9c6b3e70';

describe('persisted documents by id', () => {
  let h: Harness;
  afterEach(() => h.close());

  const citiesOf = (harness: Harness) => ({ cities: { items: harness.mock.catalog.cities.slice(0, 2).map((city) => ({ code: city.code })) } });

  it('runs a document named by documentId, prefixed or plain, by POST and by GET', async () => {
    h = await startGateway({ env: { PERSISTED_OPERATIONS_FILE: writeJson('codegen.json', { [sha256Hex(CITIES)]: CITIES }) } });
    const expected = { data: citiesOf(h) };
    const hash = sha256Hex(CITIES);
    expect((await post(h, { documentId: `sha256:${hash}` })).body).toEqual(expected);
    expect((await post(h, { documentId: hash })).body).toEqual(expected);
    expect((await get(h, { documentId: `sha256:${hash}` })).body).toEqual(expected);
    expect((await get(h, { documentId: hash, operationName: 'Cities' })).body).toEqual(expected);
    // The listed document's answer is cached like any other: one upstream call for all four.
    expect(h.mock.calls()).toBe(1);
  });

  it('runs a Relay-format map’s documents by doc_id and by id, with variables', async () => {
    const relay = { [RELAY_ID]: 'query Cities($size: Int!) { cities(pageSize: $size) { items { code } } }', 'Products.graphql': PRODUCTS };
    h = await startGateway({ env: { PERSISTED_OPERATIONS_FILE: writeJson('relay.json', relay), PERSISTED_OPERATIONS_FORMAT: 'relay' } });
    expect((await post(h, { doc_id: RELAY_ID, variables: { size: 2 } })).body).toEqual({ data: citiesOf(h) });
    const products = await post(h, { id: 'Products.graphql' });
    expect(products.body.data.products.items).toHaveLength(2);
    expect((await get(h, { doc_id: RELAY_ID, variables: { size: 2 } })).body).toEqual({ data: citiesOf(h) });
  });

  it('refuses an unknown id, and a document beside an id, before any upstream call', async () => {
    h = await startGateway({ env: { PERSISTED_OPERATIONS_FILE: writeJson('codegen.json', { [sha256Hex(CITIES)]: CITIES }) } });
    for (const body of [{ documentId: `sha256:${sha256Hex(PRODUCTS)}` }, { doc_id: RELAY_ID }, { id: 'nope' }]) {
      const answer = await post(h, body);
      expect([answer.status, codesOf(answer.body)]).toEqual([404, ['PERSISTED_QUERY_NOT_IN_LIST']]);
    }
    const byGet = await get(h, { documentId: 'nope' });
    expect([byGet.status, codesOf(byGet.body)]).toEqual([404, ['PERSISTED_QUERY_NOT_IN_LIST']]);
    expect(codesOf((await post(h, { query: PRODUCTS, documentId: sha256Hex(CITIES) })).body)).toEqual(['PERSISTED_QUERY_ONLY']);
    expect(h.mock.calls()).toBe(0);
  });

  it('does not read ids without a list: yoga refuses them as unknown parameters', async () => {
    h = await startGateway();
    const answer = await post(h, { documentId: `sha256:${sha256Hex(CITIES)}` });
    expect([answer.status, codesOf(answer.body)]).toEqual([400, ['BAD_REQUEST']]);
    expect(answer.body.errors[0].message).toBe('Unexpected parameter "documentId" in the request body.');
  });

  it('reads documentId in a WebSocket subscribe message too, through the same admission', async () => {
    h = await startGateway({ env: { PERSISTED_OPERATIONS_FILE: writeJson('relay-ws.json', { [RELAY_ID]: CITIES }) } });
    const socket = await openRaw(h.wsUrl);
    socket.subscribe('1', { query: '', documentId: RELAY_ID } as never);
    socket.subscribe('2', { query: '', documentId: 'nope' } as never);
    const [listed, unknown] = [await socket.outcome('1'), await socket.outcome('2')];
    expect(listed[0]).toEqual({ type: 'next', id: '1', payload: { data: citiesOf(h) } });
    expect(unknown[0]).toMatchObject({ type: 'error', payload: [{ extensions: { code: 'PERSISTED_QUERY_NOT_IN_LIST' } }] });
    socket.ws.close();
  });
});

describe('an id parameter given twice in a GET', () => {
  let h: Harness;
  afterEach(() => h.close());

  it.each(['documentId', 'doc_id', 'id'])('is refused 400 BAD_REQUEST, not answered with the first for a shared cache to keep (%s)', async (name) => {
    h = await startGateway({ env: { PERSISTED_OPERATIONS_FILE: writeJson('twice.json', { [sha256Hex(CITIES)]: CITIES, [sha256Hex(PRODUCTS)]: PRODUCTS }) } });
    const [cities, products] = [sha256Hex(CITIES), sha256Hex(PRODUCTS)];
    for (const values of [[cities, products], [cities, 'nope'], [cities, cities]]) {
      const search = values.map((value) => `${name}=${value}`).join('&');
      const response = await fetch(`${h.url}/graphql?${search}`, { headers: { accept: 'application/graphql-response+json' } });
      const body = (await response.json()) as { errors?: Array<{ message: string; extensions: { code: string } }> };
      expect([response.status, body.errors?.map((error) => error.extensions.code)]).toEqual([400, ['BAD_REQUEST']]);
      expect(body.errors![0]!.message).toContain(name);
      expect(response.headers.get('cache-control')).toBe('no-store');
    }
    // Once, it is answered, and may be kept.
    const once = await fetch(`${h.url}/graphql?${name}=${cities}`);
    expect([once.status, once.headers.get('cache-control')]).toEqual([200, expect.stringContaining('public')]);
    expect(h.mock.calls()).toBe(1);
  });
});

describe('reloading the persisted documents', () => {
  let s: HeldGateway;
  afterEach(() => s.close());

  it('swaps the list for the new file’s while a request admitted by the old one finishes', async () => {
    const file = writeJson('reloaded.json', { [sha256Hex(CITIES)]: CITIES });
    s = await startHeldGateway({ env: { PERSISTED_OPERATIONS_FILE: file } });
    const { h, held } = s;
    held.hold('/api/city/list');
    const inFlight = post(h, { documentId: sha256Hex(CITIES) });
    await until(() => held.waiting('/api/city/list') === 1);
    writeJson('reloaded.json', { format: 'apollo-persisted-query-manifest', version: 1, operations: [{ id: 'products', name: 'Products', type: 'query', body: PRODUCTS }] });
    expect(await h.gateway.reloadPersisted()).toEqual({ reloaded: true, operations: 1, format: 'apollo' });
    held.release('/api/city/list');
    expect((await inFlight).body.data.cities.items).toHaveLength(2);
    expect(codesOf((await post(h, { documentId: sha256Hex(CITIES) })).body)).toEqual(['PERSISTED_QUERY_NOT_IN_LIST']);
    expect((await post(h, { documentId: 'products' })).body.data.products.items).toHaveLength(2);
    expect(h.logs.join('')).toMatch(/"format":"apollo","operations":1,"msg":"persisted documents reloaded"/);
  });

  it('keeps the old list when the new file is bad or gone, and warns why', async () => {
    const file = writeJson('kept.json', { [sha256Hex(CITIES)]: CITIES });
    s = await startHeldGateway({ env: { PERSISTED_OPERATIONS_FILE: file } });
    const { h } = s;
    writeJson('kept.json', { [sha256Hex(PRODUCTS)]: CITIES });
    const bad = await h.gateway.reloadPersisted();
    expect(bad).toMatchObject({ reloaded: false, problems: [expect.stringContaining('is not the sha256 of its document')] });
    rmSync(file);
    expect(await h.gateway.reloadPersisted()).toMatchObject({ reloaded: false, problems: [expect.stringContaining('must name a readable JSON file')] });
    expect((await post(h, { documentId: sha256Hex(CITIES) })).body.data.cities.items).toHaveLength(2);
    const warnings = h.logs.join('').split('\n').filter((line) => line.includes('persisted documents not reloaded'));
    expect(warnings).toHaveLength(2);
    expect(JSON.parse(warnings[0]!)).toMatchObject({ level: 40, file }); // pino's warn
  });
});
