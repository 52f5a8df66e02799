// One tool for lint and format: typescript-eslint for correctness, @stylistic for layout,
// and no-restricted-imports for the dependency fences (README, "Development").
import tseslint from 'typescript-eslint';
import stylistic from '@stylistic/eslint-plugin';

/** Packages that may only be imported from one folder of src/. */
const fences = [
  { name: 'ink', home: 'src/tui' },
  { name: 'react', home: 'src/tui' },
  { name: 'openai', home: 'src/llm' },
  { name: 'level', home: 'src/tape' },
];

const fenceRule = (except) => [
  'error',
  {
    paths: fences
      .filter((f) => f.home !== except)
      .map((f) => ({ name: f.name, message: `'${f.name}' may only be imported inside ${f.home}/ (see README, "Development").` })),
    patterns: fences
      .filter((f) => f.home !== except)
      .map((f) => ({ group: [`${f.name}/*`], message: `'${f.name}' may only be imported inside ${f.home}/.` })),
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
  ...fences.map((f) => ({ files: [`${f.home}/**`], rules: { 'no-restricted-imports': fenceRule(f.home) } })),
  {
    files: ['**/*.js', '**/*.mjs'],
    plugins: { '@stylistic': stylistic },
    rules: {
      '@stylistic/semi': ['error', 'always'],
      '@stylistic/quotes': ['error', 'single', { avoidEscape: true }],
    },
  },
  // The CLI's entry is CommonJS (bin/package.json): Node starts it without its ES module loader.
  { files: ['bin/**/*.js'], languageOptions: { sourceType: 'commonjs' }, rules: { '@typescript-eslint/no-require-imports': 'off' } },
);
