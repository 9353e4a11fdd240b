/**
 * A large persisted documents file (docs "Persisted documents"): bounded by
 * `PERSISTED_OPERATIONS_MAX_BYTES` at start-up and on a reload, and read again while requests are
 * served: its documents are checked in slices, with a turn of the event loop between them.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/base/config/config.js';
import { DEFAULT_MAX_BYTES, sha256Hex } from '../../../src/base/config/persisted-operations.js';
import { startGateway, type Harness } from '../../helpers/gateway.js';
import { codesOf, post } from '../../helpers/raw-http.js';

const dir = mkdtempSync(join(tmpdir(), 'vending-graph-large-list-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const CITIES = 'query Cities { cities(pageSize: 2) { items { code } } }';

/** Writes `text` as `name` in the test's directory; its path and size in bytes. */
function write(name: string, text: string): { file: string; bytes: number } {
  const file = join(dir, name);
  writeFileSync(file, text);
  return { file, bytes: Buffer.byteLength(text) };
}

/** A codegen map of `count` distinct documents, CITIES among them. */
function codegenText(count: number): string {
  const documents: Record<string, string> = { [sha256Hex(CITIES)]: CITIES };
  for (let i = 1; i < count; i += 1) {
    const document = `query Q${i}($g: String!) { product(goodsCode: $g) { goodsCode productName } c${i}: cities(pageSize: 1) { total } }`;
    documents[sha256Hex(document)] = document;
  }
  return JSON.stringify(documents);
}

function configProblems(env: Record<string, string>): readonly string[] {
  try {
    loadConfig(env);
  } catch (error) {
    return error instanceof ConfigError ? error.problems : [String(error)];
  }
  return [];
}

describe('a large persisted documents file', () => {
  let h: Harness;
  afterEach(() => h.close());

  // How many turns a reload takes: test/unit/base/config/persisted-reading.test.ts.
  it('is read again while /healthz answers, request after request', async () => {
    const { file } = write('large.json', JSON.stringify({ [sha256Hex(CITIES)]: CITIES }));
    h = await startGateway({ env: { PERSISTED_OPERATIONS_FILE: file, PERSISTED_OPERATIONS_MAX_BYTES: String(16 * 1024 * 1024) } });
    write('large.json', codegenText(20_000));
    let read = false;
    const reload = h.gateway.reloadPersisted().finally(() => (read = true));
    // One after the other: checked at once, the file would hold every request after its read up.
    for (let i = 0; i < 5; i += 1) expect((await fetch(`${h.url}/healthz`)).status).toBe(200);
    expect(read).toBe(false);
    expect(await reload).toEqual({ reloaded: true, operations: 20_000, format: 'codegen' });
    expect((await post(h, { documentId: sha256Hex(CITIES) })).body.data.cities.items).toHaveLength(2);
  });

  it('over PERSISTED_OPERATIONS_MAX_BYTES stops start-up, with the other problems; by default over 4 MiB', () => {
    const { file, bytes } = write('over.json', codegenText(40));
    const problems = configProblems({ PERSISTED_OPERATIONS_FILE: file, PERSISTED_OPERATIONS_MAX_BYTES: '1024', PORT: 'x' });
    expect(problems).toHaveLength(2);
    expect(problems).toContainEqual(`PERSISTED_OPERATIONS_FILE ${JSON.stringify(file)} is ${bytes} bytes, more than PERSISTED_OPERATIONS_MAX_BYTES (1024) allows: raise it, or list fewer operations`);
    const large = write('over-default.json', `${' '.repeat(DEFAULT_MAX_BYTES)}{}`);
    expect(configProblems({ PERSISTED_OPERATIONS_FILE: large.file })).toEqual([expect.stringContaining(`is ${large.bytes} bytes, more than PERSISTED_OPERATIONS_MAX_BYTES (${DEFAULT_MAX_BYTES})`)]);
    expect(configProblems({ PERSISTED_OPERATIONS_FILE: file, PERSISTED_OPERATIONS_MAX_BYTES: String(bytes) })).toEqual([]);
  });

  it('over PERSISTED_OPERATIONS_MAX_BYTES on a reload keeps the old list, and warns why', async () => {
    const { file } = write('kept.json', JSON.stringify({ [sha256Hex(CITIES)]: CITIES }));
    h = await startGateway({ env: { PERSISTED_OPERATIONS_FILE: file, PERSISTED_OPERATIONS_MAX_BYTES: '4096' } });
    const over = codegenText(40).replace(sha256Hex(CITIES), sha256Hex('{ products(pageSize: 1) { total } }'));
    const { bytes } = write('kept.json', over);
    expect(bytes).toBeGreaterThan(4096);
    expect(await h.gateway.reloadPersisted()).toEqual({ reloaded: false, problems: [expect.stringContaining(`is ${bytes} bytes, more than PERSISTED_OPERATIONS_MAX_BYTES (4096)`)] });
    expect((await post(h, { documentId: sha256Hex(CITIES) })).body.data.cities.items).toHaveLength(2);
    expect(codesOf((await post(h, { documentId: sha256Hex('nope') })).body)).toEqual(['PERSISTED_QUERY_NOT_IN_LIST']);
    expect(h.logs.join('')).toContain('persisted documents not reloaded, the old list stays');
  });
});
