/**
 * How a persisted documents file is read (src/base/config/persisted-formats.ts and
 * persisted-operations.ts): each format detected or forced, the codegen and Relay maps told
 * apart, and a file in none of the formats refused with a message that says what was expected.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { PersistedFormatSetting } from '../../../../src/base/config/persisted-formats.js';
import { normalId, readPersistedOperationsFile, sha256Hex } from '../../../../src/base/config/persisted-operations.js';

const dir = mkdtempSync(join(tmpdir(), 'vending-graph-formats-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const CITIES = '{ cities { total } }';
const SITES = 'query Sites { sites { total } }';
const MD5_ID = '0123456789abcdef0123456789abcdef';

function read(content: unknown, setting: PersistedFormatSetting = 'auto') {
  const file = join(dir, `${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  const problems: string[] = [];
  const list = readPersistedOperationsFile('PERSISTED_OPERATIONS_FILE', file, setting, problems);
  return { list, problems: problems.join('\n') };
}

const apollo = (operations: unknown[]) => ({ format: 'apollo-persisted-query-manifest', version: 1, operations });

describe('persisted documents file formats', () => {
  it('reads a map whose every key is a sha256 hex as codegen, any other map as Relay', () => {
    const codegen = read({ [sha256Hex(CITIES)]: CITIES, [sha256Hex(SITES).toUpperCase()]: SITES });
    expect(codegen.list?.format).toBe('codegen');
    expect(codegen.list?.documents.get(sha256Hex(SITES))).toBe(SITES);
    const relay = read({ [MD5_ID]: CITIES, 'any-string-id': SITES });
    expect(relay.list?.format).toBe('relay');
    expect([...relay.list!.documents.keys()]).toEqual([MD5_ID, 'any-string-id']);
  });

  it('refuses a codegen key that is not its document’s sha256, unless the format is forced to relay', () => {
    const wrong = { [sha256Hex(SITES)]: CITIES };
    expect(read(wrong).problems).toMatch(/read as codegen\): .* is not the sha256 of its document \(expected [0-9a-f]{64}\)/);
    expect(read(wrong, 'relay').list?.documents.get(sha256Hex(SITES))).toBe(CITIES);
  });

  it('refuses a map of sha256 ids and other ids unless the format is forced: a damaged codegen file is not read as Relay', () => {
    const mixed = { [sha256Hex(CITIES)]: CITIES, [sha256Hex(SITES).slice(1)]: SITES };
    expect(read(mixed).problems).toMatch(/has ids of 64 hex digits .* and other ids: set PERSISTED_OPERATIONS_FORMAT to codegen or relay/);
    expect(read(mixed, 'relay').list?.documents.size).toBe(2);
  });

  it('reads an Apollo manifest by its format field, ids as given', () => {
    const { list } = read(apollo([{ id: 'custom-id', name: 'Sites', type: 'query', body: SITES }, { id: sha256Hex(CITIES), name: 'Cities', type: 'query', body: CITIES }]));
    expect(list?.format).toBe('apollo');
    expect(list?.documents).toEqual(new Map([['custom-id', SITES], [sha256Hex(CITIES), CITIES]]));
  });

  it('names the bad operations of an Apollo manifest, and a manifest of another version', () => {
    expect(read(apollo([{ name: 'NoId', body: CITIES }, { id: 'x', body: '{ cities {' }])).problems)
      .toMatch(/2 bad entries .* \(read as apollo\): "operations\[0\]" is not a document .*; "x" is not a GraphQL document/);
    expect(read({ ...apollo([]), version: 2 }).problems).toMatch(/is not an Apollo manifest: expected \{"format":"apollo-persisted-query-manifest","version":1/);
  });

  it('refuses a file in none of the formats, or not in the one forced, saying what each expects', () => {
    expect(read([CITIES]).problems).toMatch(/is in none of the formats: expected a JSON object mapping each sha256 hex to its document \(codegen\); .* \(apollo\); .* \(relay\)/);
    expect(read('"text"').problems).toMatch(/is in none of the formats/);
    expect(read({ [MD5_ID]: CITIES }, 'apollo').problems).toMatch(/is not an Apollo manifest/);
    expect(read(apollo([]), 'relay').problems).toMatch(/bad entries .*"format" is not a GraphQL document/);
    expect(read({}).problems).toMatch(/lists no operations/);
    expect(read('{ nope').problems).toMatch(/is not JSON/);
  });

  it('keys ids as clients spell them: sha256: prefix dropped, hex in lower case, other ids as they are', () => {
    const hash = sha256Hex(CITIES);
    expect(normalId(`sha256:${hash.toUpperCase()}`)).toBe(hash);
    expect(normalId(MD5_ID.toUpperCase())).toBe(MD5_ID);
    expect(normalId('Relay_Id')).toBe('Relay_Id');
    expect(normalId('sha256:short')).toBe('sha256:short');
  });
});
