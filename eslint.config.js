// One tool for lint and format: typescript-eslint for correctness, @stylistic for layout,
// and no-restricted-imports for the dependency fences (README, "Development"). Which folder of
// src/ may import which is test/layers.test.ts's: it reads type-only imports and import() too.
import tseslint from 'typescript-eslint';
import stylistic from '@stylistic/eslint-plugin';

/** Packages that may only be imported from some folders of src/. */
const fences = [
  { name: 'ink', homes: ['src/tui'] },
  { name: 'react', homes: ['src/tui'] },
  { name: 'openai', homes: ['src/llm', 'src/library'] },
  { name: 'level', homes: ['src/tape'] },
  // The AI SDK adapter types the SDK structurally (src/adapters/ai-sdk.ts): a user without it loses nothing.
  { name: 'ai', homes: [] },
];
const folders = [...new Set(fences.flatMap((f) => f.homes))];
const where = (f) => f.homes.map((home) => `${home}/`).join(' or ');
const fenced = (f) => (f.homes.length === 0 ? `'${f.name}' is not imported anywhere in src/` : `'${f.name}' may only be imported inside ${where(f)}`);

/** The fences for code in `folder` (null: a folder that is home to no package). */
const fenceRule = (folder) => [
  'error',
  {
    paths: fences
      .filter((f) => !f.homes.includes(folder))
      .map((f) => ({ name: f.name, message: `${fenced(f)} (see README, "Development").` })),
    patterns: fences
      .filter((f) => !f.homes.includes(folder))
      .map((f) => ({ group: [`${f.name}/*`], message: `${fenced(f)}.` })),
  },
];

export default tseslint.config(
  // compat/consumer*.ts are compiled by the compatibility suite against its own install (compat/tsconfig*.json).
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', '.agentctl/**', '.cache/**', 'compat/consumer.ts', 'compat/consumer-ai-sdk.ts'] },
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
  ...folders.map((folder) => ({ files: [`${folder}/**`], rules: { 'no-restricted-imports': fenceRule(folder) } })),
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
