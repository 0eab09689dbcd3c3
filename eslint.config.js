// ESLint for the whole tree: typescript-eslint's recommended rules, plus the house rules that
// keep logging and boundaries honest. Formatting is Prettier's job (eslint-config-prettier
// turns off the rules that would fight it).
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'data/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    languageOptions: { ecmaVersion: 2022, sourceType: 'module', globals: globals.node },
    rules: {
      // Unused names are a smell; a leading underscore says "deliberately unused".
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // Logs go through the logger (levels, one line per request, no secrets).
      'no-console': 'error',
    },
  },
  {
    // The CLI prints to its operator, benchmarks print their tables, tests may print.
    files: ['scripts/**', 'test/**'],
    rules: { 'no-console': 'off' },
  },
);
