/**
 * One route table and one refusal writer. Every path the gateway serves is written once, in
 * src/admission/routes.ts; every refusal made outside GraphQL gets its body and its raw HTTP from
 * src/admission/refusal-writer.ts, and its message from the registry (src/base/errors.ts) unless it
 * names a figure. Read from the source, as the compiler sees it (string literals, not comments):
 * a second path literal or a body built by hand typechecks, and is the first thing to drift.
 * Tests keep their literal paths: they are what clients send.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ERRORS } from '../../src/base/errors.js';
import { ROUTES } from '../../src/admission/routes.js';

const root = join(import.meta.dirname, '../..');
const ROUTE_TABLE = 'src/admission/routes.ts';
const WRITER = 'src/admission/refusal-writer.ts';

/** Every TypeScript file of src/, but the mock upstream (another program, with its own paths) and generated code. */
function sources(dir = 'src'): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return path === 'src/mock-upstream' || path === 'src/generated' ? [] : sources(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

const parsed = new Map(sources().map((path) => [path, ts.createSourceFile(path, readFileSync(join(root, path), 'utf8'), ts.ScriptTarget.Latest, true)]));

/** Every node of `path` that `match` accepts, as `path:line: text`. */
function found(path: string, match: (node: ts.Node) => string | undefined): string[] {
  const source = parsed.get(path)!;
  const hits: string[] = [];
  const visit = (node: ts.Node) => {
    const hit = match(node);
    if (hit !== undefined) hits.push(`${path}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}: ${hit}`);
    node.forEachChild(visit);
  };
  visit(source);
  return hits;
}

/** Every finding of `match` in src/ outside `allowed`. */
function outside(allowed: string, match: (node: ts.Node) => string | undefined): string[] {
  return [...parsed.keys()].filter((path) => path !== allowed).flatMap((path) => found(path, match));
}

/** The text of a string literal or of a piece of a template literal. */
function literalText(node: ts.Node): string | undefined {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node)) return node.text;
  return undefined;
}

// The root, one character, is found in any path written: every other is searched for.
const escaped = Object.values(ROUTES).filter((path) => path !== ROUTES.root).map((path) => path.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'));
/** A served path inside a text: not part of a longer name (`application/graphql`, `../schema.graphql`). */
const routePath = new RegExp(`(?<![\\w./-])(?:${escaped.join('|')})(?![\\w.-])`);

describe('the route table (src/admission/routes.ts)', () => {
  it('is the only place in src/ where a path the gateway serves is written', () => {
    const literals = outside(ROUTE_TABLE, (node) => {
      const text = literalText(node);
      return text !== undefined && routePath.test(text) ? text : undefined;
    });
    expect(literals).toEqual([]);
  });

  it('sets the endpoint yoga serves GraphQL on', () => {
    expect(found('src/app/gateway.ts', (node) => (ts.isPropertyAssignment(node) && node.name.getText() === 'graphqlEndpoint' ? node.initializer.getText() : undefined)))
      .toEqual([expect.stringMatching(/: ROUTES\.graphql$/)]);
  });
});

describe('the refusal writer (src/admission/refusal-writer.ts)', () => {
  it('is the only place that builds the `{ errors: [{ message, extensions }] }` body of a refusal', () => {
    // An `errors` array of object literals: a GraphQL answer's errors are made by `coded` or masked, never written out.
    const bodies = outside(WRITER, (node) => {
      if (!ts.isPropertyAssignment(node) || node.name.getText() !== 'errors' || !ts.isArrayLiteralExpression(node.initializer)) return undefined;
      return node.initializer.elements.some((element) => ts.isObjectLiteralExpression(element)) ? node.getText() : undefined;
    });
    expect(bodies).toEqual([]);
  });

  it('is the only place that writes HTTP by hand on a raw socket', () => {
    const raw = outside(WRITER, (node) => {
      const text = literalText(node);
      return text?.includes('HTTP/1.1 ') ? text : undefined;
    });
    const statusLines = outside(WRITER, (node) => (ts.isIdentifier(node) && node.text === 'STATUS_CODES' ? node.text : undefined));
    expect([...raw, ...statusLines]).toEqual([]);
  });

  it('leaves the registry the only place where a code\'s default message is written', () => {
    // The mask's message, which the doors that mask an execution error hand to maskError, is not a refusal's.
    const messages = new Set<string>(Object.entries(ERRORS).filter(([code]) => code !== 'INTERNAL_SERVER_ERROR').map(([, spec]) => spec.message));
    const repeated = outside('src/base/errors.ts', (node) => {
      const text = literalText(node);
      return text !== undefined && messages.has(text) ? text : undefined;
    });
    expect(repeated).toEqual([]);
  });
});
