import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

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

describe('README.md', () => {
  it('documents every configuration variable in its table, with a default', () => {
    const readme = read('README.md');
    const variables = configVariables();
    expect(variables.length).toBeGreaterThan(20);
    const rows = new Map(
      [...readme.matchAll(/^\| `([A-Z0-9_]+)` \| ([^|]+) \|/gm)].map((match) => [match[1]!, match[2]!.trim()]),
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
});
