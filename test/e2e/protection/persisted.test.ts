import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/base/config/config.js';
import { sha256Hex } from '../../../src/base/config/persisted-operations.js';
import { createPersistedQueryStore } from '../../../src/admission/automatic-persisted.js';
import { startGateway, type Harness } from '../../helpers/gateway.js';
import { codesOf, get, post } from '../../helpers/raw-http.js';

const dir = mkdtempSync(join(tmpdir(), 'vending-graph-persisted-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function writeJson(name: string, content: unknown): string {
  const file = join(dir, name);
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

const persisted = (query: string) => ({ persistedQuery: { version: 1, sha256Hash: sha256Hex(query) } });

const LISTED = '{ cities(pageSize: 2) { items { code } } }';
const UNLISTED = '{ products(pageSize: 2) { items { goodsCode } } }';

describe('persisted operations only (PERSISTED_OPERATIONS_FILE)', () => {
  let h: Harness;
  afterEach(() => h.close());

  it('runs a listed operation by its hash, by POST and by GET', async () => {
    h = await startGateway({ env: { PERSISTED_OPERATIONS_FILE: writeJson('list.json', { [sha256Hex(LISTED)]: LISTED }) } });
    const expected = { cities: { items: h.mock.catalog.cities.slice(0, 2).map((city) => ({ code: city.code })) } };
    expect((await post(h, { extensions: persisted(LISTED) })).body).toEqual({ data: expected });
    expect((await get(h, { extensions: persisted(LISTED) })).body).toEqual({ data: expected });
  });

  it('refuses any document, listed or not, and an unknown hash, before any upstream call', async () => {
    h = await startGateway({ env: { PERSISTED_OPERATIONS_FILE: writeJson('list.json', { [sha256Hex(LISTED)]: LISTED }) } });
    const arbitrary = await post(h, { query: UNLISTED });
    expect([arbitrary.status, codesOf(arbitrary.body)]).toEqual([400, ['PERSISTED_QUERY_ONLY']]);
    // An APQ registration attempt is a document too: nothing registers in allow-list mode.
    const registration = await post(h, { query: UNLISTED, extensions: persisted(UNLISTED) });
    expect(codesOf(registration.body)).toEqual(['PERSISTED_QUERY_ONLY']);
    const unknown = await post(h, { extensions: persisted(UNLISTED) });
    expect([unknown.status, codesOf(unknown.body)]).toEqual([404, ['PERSISTED_QUERY_NOT_IN_LIST']]);
    expect(h.mock.calls()).toBe(0);
  });

  it('reports a bad file as a configuration problem, with the others', () => {
    const bad = {
      missing: join(dir, 'no-such-file.json'),
      notJson: writeJson('not.json', '{ nope'),
      array: writeJson('array.json', [LISTED]),
      wrongHash: writeJson('wrong-hash.json', { [sha256Hex(UNLISTED)]: LISTED }),
      notGraphQL: writeJson('not-graphql.json', { [sha256Hex('{ cities {')]: '{ cities {' }),
    };
    for (const file of Object.values(bad)) {
      let problems: readonly string[] = [];
      try {
        loadConfig({ PERSISTED_OPERATIONS_FILE: file, PORT: 'x' });
      } catch (error) {
        problems = error instanceof ConfigError ? error.problems : [];
      }
      expect(problems).toHaveLength(2);
      expect(problems.join('\n')).toContain('PERSISTED_OPERATIONS_FILE');
    }
  });
});

describe('automatic persisted queries', () => {
  let h: Harness;
  afterEach(() => h.close());

  it('answers an unknown hash with PersistedQueryNotFound, registers hash and query, then runs the hash alone (POST)', async () => {
    h = await startGateway();
    const first = await post(h, { extensions: persisted(LISTED) });
    expect(first.status).toBe(404);
    expect(first.body.errors).toEqual([
      expect.objectContaining({ message: 'PersistedQueryNotFound', extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } }),
    ]);
    expect(h.mock.calls()).toBe(0);
    const registered = await post(h, { query: LISTED, extensions: persisted(LISTED) });
    expect(registered.body.errors).toBeUndefined();
    const byHash = await post(h, { extensions: persisted(LISTED) });
    expect(byHash.body).toEqual(registered.body);
  });

  it('does the same round trip by GET, as clients that send hashed queries by GET do', async () => {
    h = await startGateway();
    expect(codesOf((await get(h, { extensions: persisted(LISTED) })).body)).toEqual(['PERSISTED_QUERY_NOT_FOUND']);
    const registered = await get(h, { query: LISTED, extensions: persisted(LISTED) });
    expect(registered.body.data.cities.items).toHaveLength(2);
    expect((await get(h, { extensions: persisted(LISTED) })).body).toEqual(registered.body);
  });

  it('refuses a hash that is not the query’s, and registers nothing that fails validation', async () => {
    h = await startGateway();
    const mismatch = await post(h, { query: LISTED, extensions: persisted(UNLISTED) });
    expect([mismatch.status, codesOf(mismatch.body)]).toEqual([400, ['PERSISTED_QUERY_MISMATCH']]);
    const tooDeep = '{ sites { items { points { site { points { site { code } } } } } } }';
    expect(codesOf((await post(h, { query: tooDeep, extensions: persisted(tooDeep) })).body)).toEqual(['DEPTH_LIMIT_EXCEEDED']);
    expect(codesOf((await post(h, { extensions: persisted(tooDeep) })).body)).toEqual(['PERSISTED_QUERY_NOT_FOUND']);
    expect(h.mock.calls()).toBe(0);
  });
});

describe('the automatic persisted query store', () => {
  it('keeps the most recently used documents only', () => {
    const store = createPersistedQueryStore({ maxEntries: 2 });
    for (const query of ['{ a }', '{ b }', '{ c }']) store.register(sha256Hex(query), query);
    expect(['{ a }', '{ b }', '{ c }'].map((query) => store.get(sha256Hex(query)))).toEqual([undefined, '{ b }', '{ c }']);
  });

  it('registers a document the gateway validated before, under its hash', async () => {
    const h = await startGateway();
    try {
      const query = '{ cities(pageSize: 3) { total } }';
      // Validated, and known valid: the next parse of the same text is skipped.
      expect(codesOf((await post(h, { query })).body)).toEqual([]);
      expect(codesOf((await post(h, { query, extensions: persisted(query) })).body)).toEqual([]);
      const alone = await post(h, { extensions: persisted(query) });
      expect([alone.status, codesOf(alone.body)]).toEqual([200, []]);
    } finally {
      await h.close();
    }
  });
});
