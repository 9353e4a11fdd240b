/**
 * `npm run build` (and so `npm start`) builds only what is out of date (scripts/build.ts): a second
 * start must not compile again. Run on a copy of the project, so that the tests reading dist/ here
 * never see a build half-written.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, statSync, symlinkSync, utimesSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const COPIED = ['src', 'scripts', 'examples/web', 'package.json', 'tsconfig.json', 'tsconfig.build.json'];
const OUTPUTS = ['dist/main.js', 'dist/mock-upstream/main.js', 'dist/web/index.html'];

describe('the build', () => {
  let copy: string;
  const at = (path: string): string => join(copy, path);
  const build = (): string => {
    const { status, stdout, stderr } = spawnSync(process.execPath, ['scripts/build.ts'], { cwd: copy, encoding: 'utf8' });
    expect(status, stderr).toBe(0);
    return stdout;
  };
  const changed = (path: string): number => statSync(at(path)).mtimeMs;
  const times = (): number[] => OUTPUTS.map(changed);

  beforeAll(() => {
    copy = mkdtempSync(join(tmpdir(), 'vending-graph-build-'));
    for (const path of COPIED) cpSync(join(ROOT, path), at(path), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules'), at('node_modules'));
    build();
  }, 180_000);

  afterAll(() => rmSync(copy, { recursive: true, force: true }));

  it('builds nothing the second time', () => {
    const before = times();
    expect(build()).toContain('example page: up to date');
    expect(times()).toEqual(before);
  });

  it('compiles the server again when a source changes, and leaves the page alone', () => {
    const page = changed('dist/web/index.html');
    const main = changed('dist/main.js');
    appendFileSync(at('src/main.ts'), '\nexport const rebuilt = 1;\n');
    build();
    expect(changed('dist/main.js')).toBeGreaterThan(main);
    expect(changed('dist/web/index.html')).toBe(page);
  }, 120_000);

  it('builds the page again when a file of it changes', () => {
    const page = changed('dist/web/index.html');
    const later = new Date(page + 5_000);
    utimesSync(at('examples/web/index.html'), later, later);
    expect(build()).toContain('example page: built');
    expect(changed('dist/web/index.html')).toBeGreaterThan(page);
  }, 120_000);

  it('builds the server again when its output was deleted', () => {
    rmSync(at('dist/main.js'));
    build();
    expect(statSync(at('dist/main.js')).isFile()).toBe(true);
  }, 120_000);
});
