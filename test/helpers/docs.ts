/**
 * The project's documentation as the tests read it: README.md (the front door) and every page of
 * docs/. Content moves between pages; a check of a table, a query or a recipe reads wherever it
 * now lives, and a check of one section finds it by its heading, which never changes.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = new URL('../..', import.meta.url).pathname;

/** README.md, then docs/*.md in name order: paths from the project's root. */
export function documentationPaths(): string[] {
  const pages = readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).sort();
  return ['README.md', ...pages.map((name) => `docs/${name}`)];
}

/** Every page of the documentation, one after the other (each ends with a newline). */
export function documentation(): string {
  return documentationPaths()
    .map((path) => readFileSync(join(ROOT, path), 'utf8'))
    .join('\n');
}

/** The lines of `text` that are headings, outside fenced code: their index and level. */
export function headings(text: string): Array<{ line: number; level: number; title: string }> {
  let fenced = false;
  return text.split('\n').flatMap((line, index) => {
    if (line.startsWith('```')) fenced = !fenced;
    const match = fenced ? null : /^(#{1,6}) (.+)$/.exec(line);
    return match ? [{ line: index, level: match[1]!.length, title: match[2]! }] : [];
  });
}

/**
 * The section under `heading` (`## Errors`, `### Kubernetes`), from that line to the next heading
 * of its level or higher, wherever it is. Throws when no page, or more than one, has the heading.
 */
export function section(heading: string): string {
  const found = documentationPaths().flatMap((path) => {
    const lines = readFileSync(join(ROOT, path), 'utf8').split('\n');
    const all = headings(lines.join('\n'));
    const at = all.findIndex((h) => `${'#'.repeat(h.level)} ${h.title}` === heading);
    if (at === -1) return [];
    const next = all.slice(at + 1).find((h) => h.level <= all[at]!.level);
    return [lines.slice(all[at]!.line, next?.line ?? lines.length).join('\n')];
  });
  if (found.length !== 1) throw new Error(`${found.length} sections titled ${JSON.stringify(heading)} in the documentation`);
  return found[0]!;
}
