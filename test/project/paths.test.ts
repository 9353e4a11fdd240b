/**
 * Every file or folder that the READMEs, the pages of docs/ or a comment in src/ name exists, and
 * every relative link of the documentation reaches a file (and its anchor, a heading there). A path in prose is not
 * checked by the compiler, and after files move it is the first thing to lie (issue 24 found a
 * comment naming a test that was never there). Names with a folder are resolved against the
 * commenting file's folder, src/ and the project's root; a bare name (`sources.ts`, `ws/`) must be
 * a file or folder somewhere in the project.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { documentationPaths, headings } from '../helpers/docs.js';

const root = join(import.meta.dirname, '../..');
const skipped = new Set(['node_modules', 'dist', 'coverage', '.git', '.prof']);

function walk(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    if (skipped.has(entry.name)) return [];
    const path = dir ? `${dir}/${entry.name}` : entry.name;
    return entry.isDirectory() ? walk(path) : [path];
  });
}

const files = walk('');
const names = new Set(files.map((path) => basename(path)));
const folderNames = new Set(files.flatMap((path) => path.split('/').slice(0, -1).map((name) => `${name}/`)));

/** `a/b.ts`, `../c.js`, `d.md`: a name ending in a file extension, with or without folders. */
const mention = /(?<![\w./@:%-])((?:\.{1,2}\/)*(?:[\w-]+\/)*[\w.-]*\w\.(?:ts|js|md|json|graphql|yaml|yml|lua))(?![\w/-])/g;

/** A folder, with its trailing slash: `src/edge/`, `ws/`, `../data/`. */
const folder = /(?<![\w./@:%-])((?:\.{1,2}\/)*(?:[a-z][\w-]*\/)+)(?![\w.-])/g;

/** Names of other tools' files, and what tests write (not committed): not the project's files. */
// Also files of the reader's own new project, which docs/recipes-running.md has them make.
const foreign = new Set(['Node.js', 'persisted-documents.json', 'test/artifacts/', '__generated__/persisted-queries.json', './relay.ts']);

/** README's recipe blocks are files (test/project/readme-recipes.test.ts): the compiler checks their code. */
const withoutRecipes = (text: string) => text.replace(/^<!-- recipe: \S+ -->\n```\w*\n[\s\S]*?^```$/gm, '');

/** The text of every comment of a TypeScript file. */
function comments(path: string): string {
  const text = readFileSync(join(root, path), 'utf8');
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, false);
  const found = new Map<number, string>();
  const take = (ranges: ts.CommentRange[] | undefined) => {
    for (const range of ranges ?? []) found.set(range.pos, text.slice(range.pos, range.end));
  };
  const visit = (node: ts.Node) => {
    take(ts.getLeadingCommentRanges(text, node.getFullStart()));
    take(ts.getTrailingCommentRanges(text, node.getEnd()));
    node.forEachChild(visit);
  };
  visit(source);
  return [...found.values()].join('\n');
}

/** The mentions of `text` (URLs and package subpaths aside) that name no file of the project. */
function missing(text: string, from: string): string[] {
  const prose = text.replace(/\b[a-z]+:\/\/\S+/g, ' ');
  const bad: string[] = [];
  for (const [, name] of prose.matchAll(mention)) {
    // The build's output and another package's files are not the project's.
    if (/^(dist|node_modules)\//.test(name!) || foreign.has(name!)) continue;
    if (!exists(name!, from)) bad.push(name!);
  }
  for (const [, name] of prose.matchAll(folder)) {
    if (foreign.has(name!)) continue;
    // A bare folder (`ws/`, a line of README's tree) must be one of the project's.
    const found = /^[\w-]+\/$/.test(name!)
      ? folderNames.has(name!)
      : [from, 'src', '.'].some((dir) => existsSync(join(root, dir, name!)));
    if (!found) bad.push(name!);
  }
  return bad;
}

function exists(name: string, from: string): boolean {
  // Source is imported as `.js`; either spelling names the same file.
  const spellings = name.endsWith('.js') ? [name, name.replace(/\.js$/, '.ts')] : [name];
  if (!name.includes('/')) return spellings.some((spelling) => names.has(spelling));
  return spellings.some((spelling) =>
    [from, 'src', '.'].some((dir) => existsSync(join(root, dir, spelling))),
  );
}

/** GitHub's anchor of each heading of a Markdown text: lower case, punctuation gone, spaces to `-`, repeats numbered. */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  return new Set(headings(text).map(({ title }) => {
    const slug = title.replace(/`/g, '').trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    return count === 0 ? slug : `${slug}-${count}`;
  }));
}

/**
 * The relative links of the Markdown file `path` (fenced code aside) that reach no file, or no
 * heading of it; `given` stands in for files of the project (a test's own).
 */
function brokenLinks(path: string, given: Record<string, string> = {}): string[] {
  const read = (file: string) => given[file] ?? readFileSync(join(root, file), 'utf8');
  const text = read(path).replace(/^```[\s\S]*?^```$/gm, '');
  const bad: string[] = [];
  for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    if (/^[a-z]+:/.test(target!)) continue;
    const [file, anchor] = target!.split('#') as [string, string | undefined];
    const reached = file === '' ? path : join(dirname(path), file);
    if (!(reached in given) && !existsSync(join(root, reached))) bad.push(target!);
    else if (anchor !== undefined && !(reached.endsWith('.md') && anchors(read(reached)).has(anchor))) bad.push(target!);
  }
  return bad;
}

describe('paths named in prose', () => {
  it('the READMEs and the pages of docs/ name only files that exist', () => {
    for (const path of [...documentationPaths(), 'bench/README.md']) {
      expect(missing(withoutRecipes(readFileSync(join(root, path), 'utf8')), dirname(path)), path).toEqual([]);
    }
  });

  it('links from the READMEs and the pages of docs/ reach a file, and a heading of it when they name one', () => {
    const paths = [...documentationPaths(), 'bench/README.md'];
    expect(paths.length).toBeGreaterThan(10);
    const bad = paths.flatMap((path) => brokenLinks(path).map((link) => `${path}: ${link}`));
    expect(bad).toEqual([]);
  });

  it('links every page of docs/ from README.md and from docs/README.md', () => {
    const pages = documentationPaths().filter((path) => path.startsWith('docs/') && path !== 'docs/README.md');
    expect(pages.length).toBeGreaterThan(10);
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const index = readFileSync(join(root, 'docs/README.md'), 'utf8');
    for (const page of pages) {
      expect(readme, page).toContain(`](${page})`);
      expect(index, page).toContain(`](${basename(page)})`);
    }
  });

  it('finds a link to no file, to no heading, and a heading in code that is none', () => {
    const files: Record<string, string> = {
      'docs/a.md': '# A page\n\n## Running several replicas\n\n### apollo.ts\n\n```sh\n# not a heading\n```\n## Tests\n## Tests\n',
      'docs/b.md': '[a](a.md#running-several-replicas) [b](a.md#apollots) [c](a.md#tests-1) [d](#here) [e](https://x.io/#y)\n' +
        '[f](a.md#not-a-heading) [g](missing.md) [h](#nowhere) [i](../README.md#quick-start) [j](a.md#running-several-replicas-1)\n\n# Here\n',
    };
    expect(brokenLinks('docs/b.md', files)).toEqual(['a.md#not-a-heading', 'missing.md', '#nowhere', 'a.md#running-several-replicas-1']);
  });

  it('comments in src/ name only files that exist', () => {
    const sources = files.filter((path) => path.startsWith('src/') && path.endsWith('.ts') && !path.startsWith('src/generated/'));
    expect(sources.length).toBeGreaterThan(100);
    const bad = sources.flatMap((path) =>
      missing(comments(path), dirname(path)).map((name) => `${relative(root, join(root, path))}: ${name}`),
    );
    expect(bad).toEqual([]);
  });

  it('finds a wrong path and a name no file has', () => {
    const text = 'see `src/resolvers/argument-rules.ts`, (websocket-guards.ts), ./scope.ts, `src/lean-path/`, transport/';
    expect(missing(text, 'src/doors/ws')).toEqual([
      'src/resolvers/argument-rules.ts',
      'websocket-guards.ts',
      './scope.ts',
      'src/lean-path/',
      'transport/',
    ]);
    const right = 'see `src/data/sources.ts`, ../../graph/context.js, ./guards.ts, src/doors/, graphql/ and https://x.io/a/b.js';
    expect(missing(right, 'src/doors/ws')).toEqual([]);
  });
});
