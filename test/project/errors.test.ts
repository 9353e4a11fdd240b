import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERRORS, isErrorCode } from '../../src/base/errors.js';
import { section } from '../helpers/docs.js';

const root = new URL('../../', import.meta.url).pathname;
const read = (path: string) => readFileSync(join(root, path), 'utf8');

/** Every TypeScript file of src/, but the mock upstream (its codes are the upstream's, not ours) and generated code. */
function sources(dir = 'src'): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return path === 'src/mock-upstream' || path === 'src/generated' ? [] : sources(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

/** The documentation's table of error codes (section "Errors", docs/errors.md): code → its HTTP status cell. */
function documentedTable(): Map<string, string> {
  return new Map([...section('## Errors').matchAll(/^\| `([A-Z_]+)` \| ([^|]+) \|/gm)].map((match) => [match[1]!, match[2]!.trim()]));
}

describe('the error registry (src/base/errors.ts)', () => {
  it('is the documentation\'s table of error codes, row for row, with the same HTTP status', () => {
    const table = documentedTable();
    expect([...table.keys()].sort()).toEqual(Object.keys(ERRORS).sort());
    for (const [code, spec] of Object.entries(ERRORS)) {
      const status = table.get(code)!;
      expect(status.startsWith('document' in spec ? '400' : String(spec.status)), code).toBe(true);
    }
  });

  it('holds every code src/ gives an error', () => {
    const used = new Map<string, string>();
    for (const file of sources()) {
      const text = read(file);
      // `coded('X'`, `code: 'X'`, `code: "X"`: every way src/ names the code of an error it makes.
      for (const match of text.matchAll(/(?:coded\(|\bcode: )['"]([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)['"]/g)) used.set(match[1]!, file);
    }
    expect(used.size).toBeGreaterThan(10);
    const unknown = [...used].filter(([code]) => !isErrorCode(code));
    expect(unknown).toEqual([]);
  });

  it('is the only place a GraphQL error gets a code, and codeOf is defined once', () => {
    const makers: string[] = [];
    const codeOfs: string[] = [];
    for (const file of sources()) {
      const text = read(file);
      if (file !== 'src/base/graph-errors.ts' && /new GraphQLError\(|createGraphQLError\(/.test(text)) makers.push(file);
      if (/function codeOf\(/.test(text)) codeOfs.push(file);
    }
    expect(makers).toEqual([]);
    expect(codeOfs).toEqual(['src/base/errors.ts']);
  });
});
