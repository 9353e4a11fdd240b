// @ts-check
// Lint is where the tree's shape is enforced: no import cycle in src/ or bench/, no import that
// runs up from a lower layer of src/ to a higher one (the road a request travels,
// docs/architecture.md) or of bench/ (bench/README.md), the mock upstream sharing no code with the
// gateway, and the time read only through base/clock.ts so that every test can inject it.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { importX } from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';

// Layers of src/, highest first; a file may import its own layer or a lower one.
const layers = [
  ['src/main.ts'],
  ['src/app'],
  ['src/pages', 'src/plugins'],
  ['src/doors'],
  ['src/admission', 'src/encoding'],
  ['src/response-cache'],
  ['src/graph', 'src/generated'],
  ['src/live'],
  ['src/observability'],
  ['src/request'],
  ['src/catalog'],
  ['src/data'],
  ['src/cache'],
  ['src/upstream'],
  ['src/redis'],
  ['src/base'],
];
const gateway = layers.flat();
const zones = [
  ...layers.slice(1).map((layer, i) => ({
    target: layer.map((p) => `./${p}`),
    from: layers.slice(0, i + 1).flat().map((p) => `./${p}`),
    message: 'A layer imports only its own layer or lower ones (docs/architecture.md).',
  })),
  {
    target: './src/mock-upstream',
    from: gateway.map((p) => `./${p}`),
    message: 'The mock upstream shares no code with the gateway.',
  },
  {
    target: gateway.filter((p) => p !== 'src/main.ts' && p !== 'src/app').map((p) => `./${p}`),
    from: './src/mock-upstream',
    message: 'Only app/ (demo mode) starts the mock upstream.',
  },
];

// Folders of bench/, highest first, below its entries (bench/README.md).
const benchLayers = [
  ['bench/run.ts', 'bench/profile.ts', 'bench/soak.ts', 'bench/soak-live.ts', 'bench/report.ts'],
  ['bench/report'], ['bench/measure'], ['bench/peers'], ['bench/scenarios'], ['bench/load'],
  ['bench/processes'], ['bench/workloads'], ['bench/config.ts'],
];
const benchZones = benchLayers.slice(1).map((layer, i) => ({
  target: layer.map((p) => `./${p}`),
  from: benchLayers.slice(0, i + 1).flat().map((p) => `./${p}`),
  message: 'A folder of bench/ imports only its own folder or lower ones (bench/README.md).',
}));

// Reading the time outside base/clock.ts (a call, or the function handed on); new Date(x) with an
// argument only formats a given time.
const clockReads = [
  { selector: "MemberExpression[object.name='Date'][property.name='now']", message: 'Read the time through base/clock.ts.' },
  { selector: "MemberExpression[object.name='performance'][property.name='now']", message: 'Read the time through base/clock.ts.' },
  { selector: "NewExpression[callee.name='Date'][arguments.length=0]", message: 'Read the time through base/clock.ts.' },
];
// Below the composition root a component reads the clock it was given, never the process's own.
const systemClockReads = [
  { selector: "ImportSpecifier[imported.name='systemClock']", message: 'Take a `clock: Clock`; only app/ and main.ts hand out systemClock.' },
  { selector: "MemberExpression[property.name='systemClock']", message: 'Take a `clock: Clock`; only app/ and main.ts hand out systemClock.' },
];

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'src/generated/', 'examples/web/src/generated/', 'coverage/', '.prof/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': ['error', { allow: ['error'] }],
    },
  },
  {
    // Tests read GraphQL answers as untyped JSON and compare them with the mock's data.
    files: ['test/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // Type-only imports are erased at build time, so they may close a cycle.
    files: ['src/**/*.ts', 'bench/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.json' })],
    },
    rules: {
      'import-x/no-cycle': 'error',
      'import-x/no-restricted-paths': ['error', { basePath: import.meta.dirname, zones: [...zones, ...benchZones] }],
    },
  },
  {
    files: ['src/**/*.ts'],
    ignores: ['src/base/clock.ts', 'src/mock-upstream/**', 'src/app/**', 'src/main.ts'],
    rules: { 'no-restricted-syntax': ['error', ...clockReads, ...systemClockReads] },
  },
  {
    // The composition root makes the components and hands them the one clock.
    files: ['src/app/**/*.ts', 'src/main.ts'],
    rules: { 'no-restricted-syntax': ['error', ...clockReads] },
  },

  {
    files: ['src/upstream/**', 'src/cache/**', 'src/mock-upstream/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [
        { group: ['graphql', 'graphql-yoga', 'graphql/*'], message: 'This layer knows nothing of GraphQL.' },
      ] }],
    },
  },
);
