// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

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
    files: ['src/upstream/**', 'src/cache/**', 'src/mock-upstream/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [
        { group: ['graphql', 'graphql-yoga', 'graphql/*'], message: 'This layer knows nothing of GraphQL.' },
      ] }],
    },
  },
  {
    files: ['src/mock-upstream/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [
        { group: ['../upstream/*', '../cache/*', '../loaders/*', '../resolvers/*', '../config.js', '../gateway.js'], message: 'The mock upstream shares no code with the gateway.' },
        { group: ['graphql', 'graphql-yoga'], message: 'The mock upstream knows nothing of GraphQL.' },
      ] }],
    },
  },
);
