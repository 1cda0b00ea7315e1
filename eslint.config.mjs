import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

export default tseslint.config(
  { ignores: ['node_modules/', 'src/generated/', 'src/client/schema.d.ts', '.tools/', '.data/', 'dist/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // The dashboard (src/dashboard/, browser code) is checked against its own tsconfig.json there.
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // A promise nobody awaits loses its error and its ordering: money code must not have one.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      // A new status added to a union must be handled wherever statuses are switched on.
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
    },
  },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  {
    files: ['**/*.ts'],
    ignores: ['src/temporal/client.ts'],
    rules: {
      // Payloads are encrypted before they reach Temporal (src/temporal/payload-codec.ts): every client is
      // made by temporalClient, which gives it the codec; a bare one would write customer data in clear.
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: '@temporalio/client',
              importNames: ['Client', 'WorkflowClient'],
              message: 'Make clients with temporalClient (src/temporal/client.ts).',
              allowTypeImports: true,
            },
          ],
        },
      ],
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
      // Workflow code runs in Temporal's sandbox and replays: it imports pure modules only (rules,
      // dates, contracts), never I/O, Node built-ins, services or the client/worker/activity SDKs.
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['node:*', 'fs', 'http', 'https', 'net', 'crypto', 'child_process', 'pg', '@prisma/*'],
              message: 'No I/O or Node built-ins in workflow code.',
            },
            {
              group: ['@temporalio/client', '@temporalio/worker', '@temporalio/activity'],
              message: 'Workflow code uses @temporalio/workflow only.',
            },
            {
              // The pure modules of src/ that workflows share with the API (rules, dates, names); anything else is types only.
              regex:
                '^\\.\\./(activities/|src/(?!(subscriptions/(subscription-machine|billing-dates|subscription-rejection|proration)|payments/charge-failure|temporal/search-attributes|retention/retention-targets|lib/event-origin|lib/durations)$))',
              message: 'Workflow code imports pure modules, not services, data access or HTTP.',
              allowTypeImports: true,
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/**/*.routes.ts', 'src/**/*.service.ts', 'src/health/*.ts'],
    rules: {
      // Routes and services get their dependencies from src/http/app-deps.ts: importing the app that registers them makes a cycle.
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['../app', './app'], message: 'Import AppDeps from src/http/app-deps.ts.' }] },
      ],
    },
  },
  {
    files: ['test/**/*.ts'],
    rules: {
      // A locator by name matches any element whose name contains the text unless it is exact: "Pause" also
      // found "Show JSON of subscription.paused ...". Names are exact, or a regular expression that says what varies.
      'no-restricted-syntax': [
        'error',
        {
          selector:
            "CallExpression[callee.property.name='getByRole'] > ObjectExpression:not(:has(Property[key.name='exact'])):has(Property[key.name='name']:not([value.regex]):not([value.type='NewExpression']))",
          message: "Name a role's element exactly: { name: '...', exact: true }, or with a RegExp.",
        },
        {
          selector:
            "CallExpression[callee.property.name='getByLabel'][arguments.length=1]:not([arguments.0.regex]):not([arguments.0.type='NewExpression'])",
          message: "Name a label exactly: getByLabel('...', { exact: true }), or with a RegExp.",
        },
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: {
      globals: {
        require: 'readonly',
        module: 'writable',
        process: 'readonly',
        console: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
      },
    },
  },
  // Formatting is Prettier's (`npm run lint` checks it): no stylistic rule of ESLint's competes with it.
  prettier,
);
