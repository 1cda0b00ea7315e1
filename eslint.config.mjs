import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';
import { modulesPlugin, prismaModels, PRISMA_OPERATIONS } from './scripts/module-boundaries.mjs';

// Counted debt of the modules' boundaries (docs/architecture.md, "Modules"): the places that break a rule below
// today, each named, so that no new one can join them; `npm run structure` prints how many are left. Take a
// place off its list when it is fixed: nothing else may be added.

/**
 * Imports of another module's private file that stay (`importer -> target`): none. A schemas file that needs a
 * constant or a check of another module reads it from that module's schemas file, which re-exports it.
 */
export const PRIVATE_IMPORT_DEBT = [];

/** Files outside records that still call Prisma's models or run statements themselves. */
export const DATA_ACCESS_OUTSIDE_RECORDS_DEBT = [];

/** Files below the service layer that still import HTTP errors: none (records answer null, services say 404). */
export const HTTP_BELOW_SERVICES_DEBT = [];

const RECORDS_FILES = ['src/**/*.records.ts', 'src/catalog/records.ts'];
const statementRunners = ['statementOf', 'queryRows', 'queryBound', 'queryModels', 'execute'];

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
    plugins: { modules: modulesPlugin },
    files: ['src/**/*.ts', 'activities/**/*.ts'],
    ignores: ['src/dashboard/**', 'src/generated/**', 'src/client/**'],
    rules: {
      // Another module is reached through its index.ts, its public face; its records, schemas and helpers are its own.
      'modules/private-files': ['error', { allow: PRIVATE_IMPORT_DEBT }],
    },
  },
  {
    files: ['src/**/*.ts', 'activities/**/*.ts', 'workflows/**/*.ts'],
    // src/db and src/runtime are the plumbing that runs statements (docs/architecture.md, "Data access").
    ignores: [
      'src/dashboard/**',
      'src/generated/**',
      'src/db/**',
      'src/runtime/**',
      ...RECORDS_FILES,
      ...DATA_ACCESS_OUTSIDE_RECORDS_DEBT,
    ],
    rules: {
      // One data-access home: a table is read and written by its module's records file only.
      'no-restricted-syntax': [
        'error',
        {
          selector: `CallExpression[callee.type='MemberExpression'][callee.property.name=/^(${PRISMA_OPERATIONS.join('|')})$/][callee.object.type='MemberExpression'][callee.object.property.name=/^(${prismaModels().join('|')})$/]`,
          message: "Prisma's models are called in the module's *.records.ts only: call a records function.",
        },
        {
          selector: `CallExpression[callee.property.name=/^[$](query|execute)Raw(Unsafe)?$/], TaggedTemplateExpression[tag.property.name=/^([$](query|execute)Raw|sql)$/], TaggedTemplateExpression[tag.name='sql']`,
          message: "SQL is written and run in the module's *.records.ts only (src/db/sql.ts runs it).",
        },
        {
          selector: `CallExpression[callee.name=/^(${statementRunners.join('|')})$/]`,
          message: "Statements are declared and run in the module's *.records.ts only: call a records function.",
        },
        {
          selector: `Literal[value=/\\b(SELECT\\s[\\s\\S]*\\sFROM|INSERT INTO|UPDATE\\s+\\w+\\s+SET|DELETE FROM)\\b/], TemplateElement[value.raw=/\\b(SELECT\\s[\\s\\S]*\\sFROM|INSERT INTO|UPDATE\\s+\\w+\\s+SET|DELETE FROM)\\b/]`,
          message: "SQL text lives in the module's *.records.ts only.",
        },
      ],
    },
  },
  {
    files: [...RECORDS_FILES, 'src/**/*-machine.ts', 'workflows/**/*.ts'],
    ignores: HTTP_BELOW_SERVICES_DEBT,
    rules: {
      // Below the service layer nothing knows HTTP: records answer rows or null, state machines and workflows
      // answer their own outcomes, and the service turns them into a status.
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '(^|/)http/(errors|api|routes|validation)$',
              message: 'HTTP errors and statuses belong to services and routes.',
            },
            { group: ['express'], message: 'HTTP belongs to routes.' },
          ],
        },
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
