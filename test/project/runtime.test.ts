/**
 * The project brings its own Node.js (the `node` package in devDependencies, on the npm
 * scripts' PATH), so that tests, the bench and `npm start` run on the LTS the Dockerfile ships
 * even where the system's Node is older.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  engines: { node: string };
  scripts: Record<string, string>;
  devDependencies: Record<string, string>;
};

describe('the runtime', () => {
  it('is the Node.js the project pins, which its engines and the Dockerfile agree on', () => {
    expect(process.versions.node).toBe(pkg.devDependencies.node);
    const major = Number(process.versions.node.split('.')[0]);
    expect(major).toBeGreaterThanOrEqual(Number(/>=(\d+)/.exec(pkg.engines.node)![1]));
    expect(readFileSync(new URL('../../Dockerfile', import.meta.url), 'utf8')).toContain(`ARG NODE_VERSION=${major}`);
  });

  it('runs the gateway with the same node options from npm start, the Dockerfile and the bench', async () => {
    const start = /\bnode((?: --\S+)*) dist\/main\.js/.exec(pkg.scripts.start ?? '');
    expect(start?.[1]).toContain('--max-semi-space-size=');
    const options = start![1]!.split(' ').filter(Boolean);
    const dockerfile = readFileSync(new URL('../../Dockerfile', import.meta.url), 'utf8');
    expect(dockerfile).toContain(`CMD ${JSON.stringify(['node', ...options, 'dist/main.js']).replaceAll(',', ', ')}`);
    const { SHIPPED_NODE_ARGS } = await import('../../bench/processes/gateway.js');
    expect(SHIPPED_NODE_ARGS).toEqual(options);
  });
});
