import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { section } from '../helpers/docs.js';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

/** Every environment variable src/config.ts reads, by the names its readers are given. */
function configVariables(): string[] {
  // config.ts, and the part it hands to redis.ts.
  const source = ['src/base/config/config.ts', 'src/base/config/redis.ts'].map(read).join('\n');
  const names = new Set<string>();
  for (const match of source.matchAll(/\b(?:read\.\w+(?:<[^>]*>)?\(|env\.|env\[)'?([A-Z][A-Z0-9_]+)/g)) names.add(match[1]!);
  for (const match of source.matchAll(/'([A-Z][A-Z0-9]+(?:_[A-Z0-9]+)+)'/g)) names.add(match[1]!);
  return [...names].sort();
}

/** The numbers of `text`: `0`, `5130.9`, `1,000`, `2.15.1`. */
const NUMBER = /\d+(?:[.,]\d+)*/g;

/** What README.md quotes from the bench, between its figures markers. */
const figuresBlock = (readme: string) => /<!-- figures: bench\/RESULTS\.md -->\n([\s\S]*?)<!-- end of figures -->/.exec(readme)?.[1] ?? '';

/** The figures of README's figures block that bench/RESULTS.md does not state, number for number. */
function unsourcedFigures(readme: string, results: string): string[] {
  const stated = new Set(results.match(NUMBER));
  return (figuresBlock(readme).match(NUMBER) ?? []).filter((figure) => !stated.has(figure));
}

/** The installed packages whose `engines.node` starts above `major` (`>=24.0.0`): npm warns EBADENGINE on that Node. */
function aboveNode(major: number): Array<{ name: string; range: string }> {
  const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, { name?: string; engines?: { node?: string } }> };
  return Object.entries(lock.packages).flatMap(([path, entry]) => {
    const range = entry.engines?.node ?? '';
    const floor = /^>=\s*(\d+)/.exec(range);
    if (!floor || Number(floor[1]) <= major) return [];
    return [{ name: path === '' ? entry.name! : path.slice(path.lastIndexOf('node_modules/') + 13), range }];
  });
}

/** The section titles that operators, outside checks and comments name: each a heading once, at its level. */
const TITLES = [
  '## Quick start', '## For app developers', '## Explorer', '## Example client page', '## Example queries',
  '## Questions the upstream cannot answer', '## Cursor pagination', '## Client recipes', '### apollo.ts', '### urql.ts',
  '### relay.ts', '### relay-persisted.ts', '### graphql-ws-node.ts', '### mobile.ts', '## Configuration', '## Errors',
  '## Security', '### Client authentication and rate limiting', '## Persisted documents', '## When the upstream fails',
  '## Reliability', '## HTTP caching and CDNs', '## Compression', '## Purging', '## Incremental delivery', '## Live stock',
  '## Operations', '## Tracing', '## Tests', '## Architecture', '## Performance', '## Docker', '## Running several replicas',
  '### Redis topologies', '### Kubernetes',
];

describe('README.md and docs/', () => {
  it('keeps every section title as a heading, once, at its level', () => {
    for (const title of TITLES) expect(section(title).startsWith(`${title}\n`), title).toBe(true);
    expect(() => section('## Kubernetes')).toThrow('0 sections');
  });

  it('documents every configuration variable in the Configuration table, with a default', () => {
    const table = section('## Configuration');
    const variables = configVariables();
    expect(variables.length).toBeGreaterThan(20);
    const rows = new Map(
      [...table.matchAll(/^\| `([A-Z0-9_]+)` \| ([^|]+) \|/gm)].map((match) => [match[1]!, match[2]!.trim()]),
    );
    const missing = variables.filter((name) => !rows.has(name));
    expect(missing).toEqual([]);
    for (const name of variables) expect(rows.get(name), name).not.toBe('');
  });

  it('gives the two commands of the quick start', () => {
    const readme = read('README.md');
    expect(readme).toContain('npm ci && npm start');
    expect(readme).toMatch(/^npm test\b/m);
    expect(read('.ci/run')).toMatch(/^npm test$/m);
  });

  it('quotes beside the peers only figures that bench/RESULTS.md states', () => {
    const readme = read('README.md');
    const block = figuresBlock(readme);
    expect(block.match(NUMBER)?.length ?? 0).toBeGreaterThanOrEqual(10);
    for (const peer of ['Tailcall', 'Mesh', 'bare node:http']) expect(block, peer).toContain(peer);
    expect(unsourcedFigures(readme, read('bench/RESULTS.md'))).toEqual([]);
  });

  it('tells a figure that bench/RESULTS.md does not state', () => {
    const readme = '<!-- figures: bench/RESULTS.md -->\n| a | 5130.9 req/s | 1,000 and 5131 and 2.714 |\n<!-- end of figures -->\n';
    expect(unsourcedFigures(readme, 'rates 5130.9 ÷ 1890.8 (2.714) per 1,000')).toEqual(['5131']);
  });

  it('names every package whose engines make npm ci warn EBADENGINE on Node 20, with its range', () => {
    const quick = section('## Quick start');
    const warned = aboveNode(20);
    expect(warned.map((entry) => entry.name)).toContain('vending-graph');
    for (const { name, range } of warned) {
      expect(quick, name).toContain(name);
      expect(quick, name).toContain(range.replace(/^>=\s*/, '').replace(/\.0$/, ''));
    }
  });
});
