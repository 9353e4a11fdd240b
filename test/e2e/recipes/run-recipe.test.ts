/**
 * `npm run recipe -- <name>` runs one recipe against a demo gateway it starts (with what the
 * recipe's `// gateway:` line asks), prints what `run(url)` returned, and says by its exit code
 * whether the recipe worked: 0, 1 when it threw, 2 for a name that is no recipe.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freshEnv } from '../../helpers/process.js';

const ROOT = new URL('../../..', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'vending-graph-recipe-'));

/** `npm run recipe -- ...args`: its exit code, stdout and stderr. */
async function recipe(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn('npm', ['run', '--silent', 'recipe', '--', ...args], { cwd: ROOT, env: freshEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += String(chunk)));
  child.stderr.on('data', (chunk) => (stderr += String(chunk)));
  const [code] = await once(child, 'exit');
  return { code, stdout, stderr };
}

describe('npm run recipe', () => {
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('runs relay-persisted against a demo gateway given its persisted map, and prints the result', async () => {
    const { code, stdout, stderr } = await recipe('relay-persisted');
    expect(code, stderr).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ code: 'S000001', city: { name: expect.any(String) } });
    expect(stderr).toMatch(/against a demo gateway at http:\/\/127\.0\.0\.1:\d+\/graphql PERSISTED_OPERATIONS_FILE=\S+persisted-queries\.json/);
  });

  it('exits with code 1 and the error when the recipe throws', async () => {
    // A recipe outside the folder, given by its path, with the needs line every recipe starts with.
    const file = join(dir, 'failing.ts');
    writeFileSync(file, '// needs: nothing\nexport async function run(url: string) {\n  throw new Error(`no luck at ${url}`);\n}\n');
    const { code, stdout, stderr } = await recipe(file);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/the recipe failed: Error: no luck at http:\/\/127\.0\.0\.1:\d+\/graphql/);
  });

  it('exits with code 2 and lists the recipes and their needs for a name that is none', async () => {
    const { code, stderr } = await recipe('no-such-recipe');
    expect(code).toBe(2);
    expect(stderr).toContain('no recipe "no-such-recipe"');
    expect(stderr).toMatch(/^ {2}apollo +needs @apollo\/client@4\.x graphql@16\.x rxjs@7\.x$/m);
  });
});
