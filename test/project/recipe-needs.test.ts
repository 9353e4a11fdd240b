/**
 * Each client recipe names, on its first line, the npm packages a fresh project installs to run
 * it (`// needs: @apollo/client@4.x graphql@16.x rxjs@7.x`). The line is held to the project:
 * every package it imports is named, and every peer a named package requires (rxjs for Apollo
 * Client 4, graphql for graphql-sse); each version matches package.json's range and the version
 * package-lock.json installs, so what the recipes test runs is what the line promises.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RECIPES_FOLDER, readRecipeHeader, recipeFiles, type Need } from '../../scripts/recipe-header.js';

const ROOT = new URL('../../', import.meta.url);
const pkg = JSON.parse(readFileSync(new URL('package.json', ROOT), 'utf8')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
const lock = JSON.parse(readFileSync(new URL('package-lock.json', ROOT), 'utf8')) as { packages: Record<string, LockEntry> };

interface LockEntry {
  version: string;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

/** The packages `source` imports (`@scope/name` or `name`, subpaths dropped, `node:` built-ins left out). */
function importedPackages(source: string): string[] {
  const specifiers = [...source.matchAll(/^\s*(?:import|export)\b[^'"]*?from\s+'([^']+)'|^\s*import\s+'([^']+)'/gm)].map((match) => (match[1] ?? match[2])!);
  const packages = specifiers.filter((spec) => !spec.startsWith('.') && !spec.startsWith('node:'))
    .map((spec) => spec.split('/').slice(0, spec.startsWith('@') ? 2 : 1).join('/'));
  return [...new Set(packages)].sort();
}

/** What a needs line leaves out: imported packages and required peers of the named packages it does not name. */
function unnamed(needs: readonly Need[], imported: readonly string[], packages: Record<string, LockEntry>): string[] {
  const named = new Set(needs.map((need) => need.name));
  const peers = needs.flatMap((need) => {
    const entry = packages[`node_modules/${need.name}`];
    return Object.keys(entry?.peerDependencies ?? {}).filter((peer) => entry?.peerDependenciesMeta?.[peer]?.optional !== true);
  });
  return [...new Set([...imported, ...peers])].filter((name) => !named.has(name)).sort();
}

/** Whether `version` (e.g. `4.3.8`) fits `pattern` (e.g. `4.x`, `4.3.x`, `4.3.8`). */
function fits(version: string, pattern: string): boolean {
  const have = version.split('.');
  return pattern.split('.').every((part, i) => part === 'x' || part === have[i]);
}

describe('the needs line of each recipe', () => {
  const recipes = recipeFiles();

  it.each(recipes)('%s names every package it imports and every peer they require', (file) => {
    const path = join(RECIPES_FOLDER, file);
    const { needs } = readRecipeHeader(path);
    expect(unnamed(needs, importedPackages(readFileSync(path, 'utf8')), lock.packages)).toEqual([]);
  });

  it.each(recipes)('%s names versions the project declares and installs', (file) => {
    for (const { name, version } of readRecipeHeader(join(RECIPES_FOLDER, file)).needs) {
      const declared = pkg.dependencies[name] ?? pkg.devDependencies[name];
      expect(declared, `${name} in package.json`).toBeDefined();
      expect(fits(/\d+(\.\d+)*/.exec(declared!)![0], version), `${name}: package.json has ${declared}, the recipe says ${version}`).toBe(true);
      const installed = lock.packages[`node_modules/${name}`]?.version;
      expect(installed !== undefined && fits(installed, version), `${name}: package-lock.json has ${installed}, the recipe says ${version}`).toBe(true);
    }
  });

  it('tells a line that leaves out a required peer or an import', () => {
    const apollo = [{ name: '@apollo/client', version: '4.x' }];
    expect(unnamed(apollo, ['@apollo/client'], lock.packages)).toEqual(['graphql', 'rxjs']);
    expect(importedPackages("import { a } from '@urql/core';\nimport WebSocket from 'ws';\nimport { b } from './own.js';\nimport { c } from 'node:fs';\n"))
      .toEqual(['@urql/core', 'ws']);
  });

  it('reads a header and refuses a recipe without one', () => {
    expect(readRecipeHeader(join(RECIPES_FOLDER, 'relay-persisted.ts'))).toEqual({
      needs: [{ name: 'relay-runtime', version: '21.x' }, { name: 'relay-compiler', version: '21.x' }],
      gateway: { PERSISTED_OPERATIONS_FILE: join(RECIPES_FOLDER, '__generated__/persisted-queries.json') },
    });
    expect(() => readRecipeHeader(new URL('package.json', ROOT).pathname)).toThrow(/must start with a "\/\/ needs: package@version …" line/);
  });
});
