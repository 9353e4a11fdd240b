/**
 * Every example query of README.md answers data in demo mode, as a newcomer would run it after
 * `npm start`: each ```graphql block, with the ```json block right after it as its variables,
 * sent to the gateway in demo mode, must answer without errors and with no empty list and no
 * null field at its top. A block marked `<!-- not run: reason -->` (a subscription, or a
 * refusal shown on purpose) is listed as skipped, with its reason, rather than left out silently.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemo, type Demo } from '../../helpers/demo.js';

interface Example {
  title: string;
  query: string;
  variables?: Record<string, unknown>;
  skip?: string;
}

/** The ```graphql blocks of `readme`, each with its variables and its not-run marker, if any. */
export function readmeExamples(readme: string): Example[] {
  const block = /(?:<!-- not run: ([^>]*?) -->\n)?^```graphql\n([\s\S]*?)^```\n(?:```json\n([\s\S]*?)^```\n)?/gm;
  return [...readme.matchAll(block)].map(([, skip, query, variables], i) => ({
    title: `${i + 1}. ${/^#\s*(.*)$/m.exec(query!)?.[1] ?? query!.trim().split('\n')[0]}`,
    query: query!,
    ...(variables && { variables: JSON.parse(variables) }),
    ...(skip && { skip }),
  }));
}

/** The paths under `data` that hold an empty list or a null, top-level fields included. */
function emptyPlaces(value: unknown, path = 'data'): string[] {
  if (value === null || value === undefined) return [path];
  if (Array.isArray(value)) return value.length === 0 ? [path] : value.flatMap((item, i) => emptyPlaces(item, `${path}.${i}`));
  if (typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, item]) => (item === null && path !== 'data' ? [] : emptyPlaces(item, `${path}.${key}`)));
}

const EXAMPLES = readmeExamples(readFileSync(new URL('../../../README.md', import.meta.url), 'utf8'));

describe('the README’s example queries, against the demo gateway', () => {
  let demo: Demo;
  beforeAll(async () => {
    demo = await startDemo();
  });
  afterAll(() => demo?.stop());

  it('finds the README’s examples, with the variables of the one that takes some', () => {
    expect(EXAMPLES.length).toBeGreaterThanOrEqual(6);
    expect(EXAMPLES.find((example) => example.query.includes('$code'))?.variables).toEqual({ code: expect.any(String) });
  });

  for (const example of EXAMPLES) {
    it.skipIf(example.skip !== undefined)(`${example.title} answers non-empty data${example.skip ? ` (not run: ${example.skip})` : ''}`, async () => {
      const response = await fetch(demo.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
        body: JSON.stringify({ query: example.query, variables: example.variables }),
      });
      const { data, errors } = (await response.json()) as { data?: unknown; errors?: unknown[] };
      expect(errors, example.query).toBeUndefined();
      expect(emptyPlaces(data), example.query).toEqual([]);
    });
  }

  it('reads a marker, and the variables after a block', () => {
    const text = '<!-- not run: a subscription -->\n```graphql\nsubscription { a }\n```\n```graphql\n# B\nquery ($c: String!) { b(c: $c) }\n```\n```json\n{ "c": "x" }\n```\n';
    expect(readmeExamples(text)).toEqual([
      { title: '1. subscription { a }', query: 'subscription { a }\n', skip: 'a subscription' },
      { title: '2. B', query: '# B\nquery ($c: String!) { b(c: $c) }\n', variables: { c: 'x' } },
    ]);
  });
});
