// One tool for lint and format: typescript-eslint for correctness, @stylistic for layout,
// and no-restricted-imports for the dependency fences (README, "Development").
import tseslint from 'typescript-eslint';
import stylistic from '@stylistic/eslint-plugin';

/** Packages that may only be imported from one folder of src/. */
const fences = [
  { name: 'ink', home: 'src/tui' },
  { name: 'react', home: 'src/tui' },
  { name: 'openai', home: 'src/llm' },
  // The transport speaks the model APIs on the wire: it may use the SDK's types (and nothing else).
  { name: 'openai', home: 'src/transport' },
  { name: 'level', home: 'src/tape' },
];

const homes = (name) => fences.filter((f) => f.name === name).map((f) => `${f.home}/`).join(' or ');

/** One entry per package fenced off from `except` (a folder): its homes do not include it. */
const fencedFrom = (except) => [...new Set(fences.map((f) => f.name))].filter((name) => !fences.some((f) => f.name === name && f.home === except));

const fenceRule = (except) => [
  'error',
  {
    paths: fencedFrom(except).map((name) => ({ name, message: `'${name}' may only be imported inside ${homes(name)} (see README, "Development").` })),
    patterns: fencedFrom(except).map((name) => ({ group: [`${name}/*`], message: `'${name}' may only be imported inside ${homes(name)}.` })),
  },
];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', '.agentctl/**'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: {
      parserOptions: { project: './tsconfig.test.json', tsconfigRootDir: import.meta.dirname },
    },
    plugins: { '@stylistic': stylistic },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@stylistic/semi': ['error', 'always'],
      '@stylistic/quotes': ['error', 'single', { avoidEscape: true }],
      '@stylistic/indent': ['error', 2, { SwitchCase: 1 }],
      '@stylistic/comma-dangle': ['error', 'always-multiline'],
      '@stylistic/eol-last': 'error',
      '@stylistic/no-trailing-spaces': 'error',
      '@stylistic/object-curly-spacing': ['error', 'always'],
      '@stylistic/max-len': ['error', { code: 150, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreComments: true }],
    },
  },
  { files: ['src/**'], rules: { 'no-restricted-imports': fenceRule(null) } },
  ...[...new Set(fences.map((f) => f.home))].map((home) => ({ files: [`${home}/**`], rules: { 'no-restricted-imports': fenceRule(home) } })),
  {
    files: ['**/*.js', '**/*.mjs'],
    plugins: { '@stylistic': stylistic },
    rules: {
      '@stylistic/semi': ['error', 'always'],
      '@stylistic/quotes': ['error', 'single', { avoidEscape: true }],
    },
  },
);
