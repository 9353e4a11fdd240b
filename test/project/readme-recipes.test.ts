/**
 * The documentation (README.md and docs/, the recipes themselves in docs/client-recipes.md) shows
 * the client recipes of examples/recipes/: each block marked `<!-- recipe: path -->` must be that
 * file exactly, so the pages show what the recipes test runs (test/e2e/recipes/recipes.test.ts)
 * and a snippet cannot rot on its own.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { documentation } from '../helpers/docs.js';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

/** Each `<!-- recipe: path -->` marker of `readme` with the fenced block right after it. */
export function recipeBlocks(readme: string): { path: string; code: string }[] {
  return [...readme.matchAll(/^<!-- recipe: (\S+) -->\n```\w*\n([\s\S]*?)^```$/gm)].map((match) => ({
    path: match[1]!,
    code: match[2]!,
  }));
}

describe('the recipes in the documentation', () => {
  const readme = documentation();
  const blocks = recipeBlocks(readme);

  it('shows each marked recipe exactly as its file is', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(5);
    for (const { path, code } of blocks) expect(code, path).toBe(read(path));
  });

  it('shows or names every recipe of examples/recipes/', () => {
    const shown = new Set(blocks.map((block) => block.path));
    const files = readdirSync(new URL('../../examples/recipes/', import.meta.url)).filter((name) => name.endsWith('.ts'));
    for (const name of files) {
      const path = `examples/recipes/${name}`;
      expect(shown.has(path) || readme.includes(`\`${path}\``), path).toBe(true);
    }
  });

  it('tells a block that differs from its file', () => {
    const edited = `<!-- recipe: examples/recipes/relay.ts -->\n\`\`\`ts\n${read('examples/recipes/relay.ts').replace('pageSize: 5', 'pageSize: 6')}\`\`\`\n`;
    const [block] = recipeBlocks(edited);
    expect(block!.path).toBe('examples/recipes/relay.ts');
    expect(block!.code).not.toBe(read('examples/recipes/relay.ts'));
  });
});
