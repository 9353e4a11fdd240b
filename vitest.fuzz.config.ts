/**
 * `npm run fuzz`: only the fuzzers, long (FUZZ_RUNS cases per property, default 1000 from the
 * script), with no per-test time limit. `npm test` runs the same files briefly from a fixed seed.
 */
import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: ['test/fuzz/**/*.fuzz.test.ts'],
    testTimeout: 0,
    hookTimeout: 120_000,
    // One file at a time: the memory bounds measure this process's heap.
    fileParallelism: false,
  },
});
