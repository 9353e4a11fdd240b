/**
 * Reading a persisted documents file again (src/base/config/persisted-operations.ts): in slices,
 * with a turn between them, so that a large file does not hold requests up while it is checked;
 * to the same list, and the same problems, as reading it at start-up at once.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readPersistedOperationsFile, rereadPersistedOperations, sha256Hex, SLICE_BYTES } from '../../../../src/base/config/persisted-operations.js';

const dir = mkdtempSync(join(tmpdir(), 'vending-graph-reading-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const MAX_BYTES = 16 * 1024 * 1024;

/** A codegen file of `count` distinct documents (one bad when `badAt` says which); its path and bytes. */
function codegenFile(name: string, count: number, badAt?: number): { file: string; bytes: number } {
  const documents: Record<string, string> = {};
  for (let i = 0; i < count; i += 1) {
    const document = `query Q${i}($g: String!) { product(goodsCode: $g) { goodsCode productName } c${i}: cities(pageSize: 1) { total } }`;
    documents[sha256Hex(document)] = i === badAt ? `${document} {` : document;
  }
  const file = join(dir, name);
  const text = JSON.stringify(documents);
  writeFileSync(file, text);
  return { file, bytes: Buffer.byteLength(text) };
}

/** Reads `file` again, counting the turns it takes. */
async function reread(file: string) {
  let turns = 0;
  const list = await rereadPersistedOperations('PERSISTED_OPERATIONS_FILE', { file, setting: 'auto', maxBytes: MAX_BYTES }, async () => {
    turns += 1;
    await new Promise((resolve) => setImmediate(resolve));
  });
  return { list, turns };
}

describe('reading the persisted documents again', () => {
  it('takes a turn after every SLICE_BYTES of the file at most', async () => {
    const { file, bytes } = codegenFile('sliced.json', 10_000);
    expect(bytes).toBeGreaterThan(20 * SLICE_BYTES);
    const { list, turns } = await reread(file);
    expect(list).toMatchObject({ format: 'codegen', maxBytes: MAX_BYTES });
    expect(Array.isArray(list) ? 0 : list.documents.size).toBe(10_000);
    expect(turns).toBeGreaterThanOrEqual(Math.floor(bytes / SLICE_BYTES));
  });

  it('reads the same list, and the same problems, as start-up does at once', async () => {
    for (const [name, badAt] of [['same.json', undefined], ['same-bad.json', 1234]] as const) {
      const { file } = codegenFile(name, 2000, badAt);
      const problems: string[] = [];
      const atOnce = readPersistedOperationsFile('PERSISTED_OPERATIONS_FILE', file, 'auto', problems, MAX_BYTES);
      const { list } = await reread(file);
      expect(problems).toHaveLength(badAt === undefined ? 0 : 1);
      expect(list).toEqual(atOnce ?? problems);
    }
  });
});
