// What a module of src/ is and which of its files others may import (docs/architecture.md, "Modules"), read
// by ESLint (the rule below), by the codemod that writes the modules' index.ts files (scripts/module-faces.ts)
// and by `npm run structure`: one definition for the three.
import fs from 'node:fs';
import path from 'node:path';

export const root = path.resolve(import.meta.dirname, '..');

/** Folders (and files) of src/ that are plumbing, not modules: anything may import any file of theirs. */
export const PLUMBING = new Set(['db', 'lib', 'http', 'runtime', 'generated', 'client', 'config.ts']);

/**
 * The pure files workflow code imports (eslint.config.mjs, workflows' rule). Temporal bundles them into the
 * workflow sandbox, so they import one another directly: a module's index.ts would bring its services along.
 */
export const WORKFLOW_SHARED = [
  'src/subscriptions/subscription-machine',
  'src/subscriptions/billing-dates',
  'src/subscriptions/subscription-rejection',
  'src/subscriptions/proration',
  'src/payments/charge-failure',
  'src/temporal/search-attributes',
  'src/retention/retention-targets',
];

/** The module a file of src/ belongs to (its folder under src/), or null for plumbing and files outside src/. */
export function moduleOf(relative) {
  const parts = relative.split('/');
  if (parts[0] !== 'src' || parts.length < 3) return null;
  return PLUMBING.has(parts[1]) ? null : parts[1];
}

/** Backend code whose imports the modules' rule checks: src/ but the dashboard and generated code, and activities/. */
export function isCheckedImporter(relative) {
  if (relative.startsWith('activities/')) return true;
  if (!relative.startsWith('src/')) return false;
  return !/^src\/(dashboard|generated|client)\//.test(relative);
}

export const isSchemas = (relative) => /\.schemas\.ts$/.test(relative);
const isIndex = (relative) => path.basename(relative) === 'index.ts';
const withoutExtension = (relative) => relative.replace(/\.tsx?$/, '');

/** The file a relative import names (relative to the root), or null when it names none. */
export function resolveImport(importerRelative, specifier) {
  if (!specifier.startsWith('.')) return null;
  const base = path.resolve(root, path.dirname(importerRelative), specifier);
  const found = [`${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts'), base].find(
    (candidate) => fs.existsSync(candidate) && fs.statSync(candidate).isFile(),
  );
  return found ? path.relative(root, found) : null;
}

/**
 * Why an import of `targetRelative` by `importerRelative` crosses a module's boundary, or null when it may.
 * Another module is reached through its index.ts. Two exceptions, both about load order: a schemas file
 * imports another module's schemas file directly (the API's contract is built at load time, and an index
 * would load that module's services while a schema is half built), and the workflow-shared pure files
 * import one another directly (an index would bring I/O into the workflow sandbox).
 */
export function boundaryViolation(importerRelative, targetRelative) {
  // Workflow code has a rule of its own, stricter: the pure files of src/ only (eslint.config.mjs).
  if (!isCheckedImporter(importerRelative)) return null;
  const from = moduleOf(importerRelative);
  const to = moduleOf(targetRelative);
  if (!to) return null;
  if (to === from) {
    return isIndex(targetRelative) && !isIndex(importerRelative)
      ? `a file of ${to} imports its own module's index.ts, which loads the whole module first`
      : null;
  }
  if (isIndex(targetRelative)) {
    return isSchemas(importerRelative)
      ? `a schemas file imports other modules' schemas files directly: ${to}'s index.ts would load its services while this schema is built`
      : null;
  }
  if (isSchemas(importerRelative) && isSchemas(targetRelative)) return null;
  const shared = new Set(WORKFLOW_SHARED);
  if (shared.has(withoutExtension(importerRelative)) && shared.has(withoutExtension(targetRelative))) return null;
  return `${targetRelative} is private to the module ${to}: import it from ${to}'s index.ts`;
}

/** ESLint plugin `modules`: rule `private-files`, options `{ allow: ['importer -> target', ...] }` (relative to the root). */
export const modulesPlugin = {
  rules: {
    'private-files': {
      meta: {
        type: 'problem',
        docs: {
          description: "Another module's files are reached through its index.ts (docs/architecture.md, Modules).",
        },
        schema: [
          {
            type: 'object',
            properties: { allow: { type: 'array', items: { type: 'string' } } },
            additionalProperties: false,
          },
        ],
      },
      create(context) {
        const importer = path.relative(root, context.filename);
        if (!isCheckedImporter(importer)) return {};
        const allowed = new Set(context.options[0]?.allow ?? []);
        const check = (source) => {
          if (!source || source.type !== 'Literal' || typeof source.value !== 'string') return;
          const target = resolveImport(importer, source.value);
          if (!target) return;
          const violation = boundaryViolation(importer, target);
          if (violation && !allowed.has(`${importer} -> ${target}`))
            context.report({ node: source, message: violation });
        };
        return {
          ImportDeclaration: (node) => check(node.source),
          ExportNamedDeclaration: (node) => check(node.source),
          ExportAllDeclaration: (node) => check(node.source),
          ImportExpression: (node) => check(node.source),
        };
      },
    },
  },
};

/** Prisma's model names as the client spells them (customer, invoiceLine, ...), from prisma/schema. */
export function prismaModels() {
  const names = [];
  for (const file of fs.readdirSync(path.join(root, 'prisma', 'schema')))
    for (const match of fs.readFileSync(path.join(root, 'prisma', 'schema', file), 'utf8').matchAll(/^model (\w+)/gm))
      names.push(match[1][0].toLowerCase() + match[1].slice(1));
  return names.sort();
}

export const PRISMA_OPERATIONS = [
  'findMany',
  'findFirst',
  'findFirstOrThrow',
  'findUnique',
  'findUniqueOrThrow',
  'create',
  'createMany',
  'createManyAndReturn',
  'update',
  'updateMany',
  'updateManyAndReturn',
  'upsert',
  'delete',
  'deleteMany',
  'count',
  'aggregate',
  'groupBy',
];
