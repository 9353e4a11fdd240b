import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

export default defineConfig({
  resolve: {
    // graphql 16 ships CommonJS (`main`) and ESM (`module`) builds without an exports map. Node
    // (and so yoga and graphql-tools in node_modules) loads the CommonJS one; vite would hand our
    // sources the ESM one, and `instanceof GraphQLError` would then fail across the two copies.
    alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }],
  },
  test: {
    include: ['test/**/*.test.ts'],
    // Bounds for a hung test, not for a slow one: on a busy machine (npm run test:stress) a test
    // may take several times as long as alone. Tests never assert tens of ms; they wait for events
    // and give real deadlines seconds.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    expect: { poll: { timeout: 10_000 } },
    // A process per test file, as many at once as cores but one (vitest's default, stated here):
    // the tests start servers, child processes, redis-server and chromium of their own, which
    // need the last core. On 2 cores that is one file at a time.
    pool: 'forks',
    maxWorkers: Math.max(1, availableParallelism() - 1),
  },
});
