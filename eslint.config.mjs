import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'src/generated/', '.tools/', '.data/', 'dist/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  {
    files: ['workflows/**/*.ts'],
    rules: {
      // Workflows replay deterministically: wall-clock time and randomness come from @temporalio/workflow.
      'no-restricted-properties': [
        'error',
        { object: 'Date', property: 'now', message: 'Read time with workflowNow() from workflows/clock.ts.' },
      ],
      'no-restricted-imports': ['error', { patterns: ['node:*', 'fs', 'http', 'https', 'net', 'pg', '@prisma/*', '../src/db/*'] }],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: {
      globals: { require: 'readonly', module: 'writable', process: 'readonly', console: 'readonly', setInterval: 'readonly', clearInterval: 'readonly' },
    },
  },
);
