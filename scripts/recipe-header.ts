/**
 * The header of a client recipe (examples/recipes/*.ts), its first comment lines:
 * - `// needs: @apollo/client@4.x graphql@16.x rxjs@7.x`: the npm packages a fresh project
 *   installs to run it, each with its version range (`nothing …` when it needs none);
 * - `// gateway: NAME=value …` (optional): what the demo gateway it runs against needs besides,
 *   a `…_FILE` value being a path relative to the recipe's folder.
 * `npm run recipe` (scripts/recipe.ts) and the tests read it.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The recipes' folder, an absolute path. */
export const RECIPES_FOLDER = fileURLToPath(new URL('../examples/recipes/', import.meta.url));

export interface Need {
  /** The package, e.g. `@apollo/client`. */
  name: string;
  /** Its version range as written, e.g. `4.x`. */
  version: string;
}

export interface RecipeHeader {
  needs: Need[];
  /** Environment of the demo gateway on top of `npm start`'s, `…_FILE` paths made absolute. */
  gateway: Record<string, string>;
}

const NEED = /^(@?[^@\s]+)@(\S+)$/;

/** The recipes' file names, e.g. `apollo.ts`, sorted. */
export function recipeFiles(): string[] {
  return readdirSync(RECIPES_FOLDER).filter((name) => name.endsWith('.ts')).sort();
}

/** The header of the recipe at `path`; throws, naming the file, when its needs line is missing or malformed. */
export function readRecipeHeader(path: string): RecipeHeader {
  const lines = readFileSync(path, 'utf8').split('\n');
  const needsLine = /^\/\/ needs: (.+)$/.exec(lines[0] ?? '');
  if (needsLine === null) throw new Error(`${path} must start with a "// needs: package@version …" line, but starts with: ${JSON.stringify(lines[0])}`);
  const words = needsLine[1]!.trim().split(/\s+/);
  const needs = words[0] === 'nothing' ? [] : words.map((word) => {
    const match = NEED.exec(word);
    if (match === null) throw new Error(`${path}: each need is package@version, but got: ${JSON.stringify(word)}`);
    return { name: match[1]!, version: match[2]! };
  });
  const gateway: Record<string, string> = {};
  for (const line of lines.slice(1)) {
    const setting = /^\/\/ gateway: (.+)$/.exec(line);
    if (setting === null) break;
    for (const pair of setting[1]!.trim().split(/\s+/)) {
      const [name, value = ''] = pair.split('=', 2) as [string, string?];
      gateway[name] = name.endsWith('_FILE') ? resolve(dirname(path), value) : value;
    }
  }
  return { needs, gateway };
}
