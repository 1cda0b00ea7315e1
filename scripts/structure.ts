// `npm run structure`: the figures of the code's structure that docs/architecture.md holds targets for,
// read from the source with TypeScript's own parser. Prints one line per figure and, with --json, a
// last line of them all; with --list, the places behind each figure. It changes nothing.
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import ts from 'typescript';
import {
  boundaryViolation,
  moduleOf,
  prismaModels,
  PRISMA_OPERATIONS as PRISMA_OPERATION_NAMES,
} from './module-boundaries.mjs';

const root = path.resolve(__dirname, '..');
const listPlaces = process.argv.includes('--list');

/** Backend code: src/ (but the dashboard, a browser app built apart), workflows/, activities/. */
const BACKEND_ROOTS = ['src', 'workflows', 'activities'];

function walk(dir: string, out: string[] = []): string[] {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name === 'node_modules' || entry.name === 'generated') continue;
      walk(full, out);
    } else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(full);
  }
  return out;
}

const rel = (file: string) => path.relative(root, file);
const backendFiles = BACKEND_ROOTS.flatMap((dir) => walk(path.join(root, dir))).filter(
  (file) => !rel(file).startsWith('src/dashboard/'),
);
const dashboardFiles = walk(path.join(root, 'src', 'dashboard'));

function parse(file: string): ts.SourceFile {
  return ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
}

/** A module's index.ts: the file behind each name it re-exports. */
const indexExports = new Map<string, Map<string, string>>();
function filesBehindIndex(index: string): Map<string, string> {
  const known = indexExports.get(index);
  if (known) return known;
  const behind = new Map<string, string>();
  for (const statement of parse(index).statements)
    if (
      ts.isExportDeclaration(statement) &&
      statement.moduleSpecifier &&
      ts.isStringLiteral(statement.moduleSpecifier) &&
      statement.exportClause &&
      ts.isNamedExports(statement.exportClause)
    )
      for (const element of statement.exportClause.elements)
        behind.set(element.name.text, path.resolve(path.dirname(index), `${statement.moduleSpecifier.text}.ts`));
  indexExports.set(index, behind);
  return behind;
}

/**
 * Relative imports and re-exports of a file that carry values (type-only ones left out), resolved to files,
 * and the edges of the import graph they make. An import through another module's index.ts counts as one of the files behind the names it takes: the
 * index only passes them on, and counted as itself it would join every module that imports the one to each
 * of its files.
 */
function valueImports(file: string, source: ts.SourceFile): { files: string[]; edges: string[] } {
  const files: string[] = [];
  const targets: string[] = [];
  const throughIndex = (found: string, names: readonly ts.ImportSpecifier[] | undefined) => {
    const behind = filesBehindIndex(found);
    for (const element of names ?? [])
      if (!element.isTypeOnly) targets.push(behind.get((element.propertyName ?? element.name).text) ?? found);
  };
  for (const statement of source.statements) {
    let specifier: ts.Expression | undefined;
    if (ts.isImportDeclaration(statement)) {
      const clause = statement.importClause;
      if (clause?.isTypeOnly) continue;
      const named = clause?.namedBindings;
      if (
        clause &&
        !clause.name &&
        named &&
        ts.isNamedImports(named) &&
        named.elements.length > 0 &&
        named.elements.every((element) => element.isTypeOnly)
      )
        continue;
      specifier = statement.moduleSpecifier;
    } else if (ts.isExportDeclaration(statement) && !statement.isTypeOnly) specifier = statement.moduleSpecifier;
    if (!specifier || !ts.isStringLiteral(specifier) || !specifier.text.startsWith('.')) continue;
    const base = path.resolve(path.dirname(file), specifier.text);
    const found = [`${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts'), base].find(
      (candidate) => fs.existsSync(candidate) && fs.statSync(candidate).isFile(),
    );
    if (!found) continue;
    const named =
      ts.isImportDeclaration(statement) &&
      statement.importClause?.namedBindings &&
      ts.isNamedImports(statement.importClause.namedBindings)
        ? statement.importClause.namedBindings.elements
        : undefined;
    if (
      path.basename(found) === 'index.ts' &&
      moduleOf(rel(found)) &&
      moduleOf(rel(found)) !== moduleOf(rel(file)) &&
      named
    )
      throughIndex(found, named);
    else targets.push(found);
    files.push(found);
  }
  return { files, edges: targets };
}

const PRISMA_OPERATIONS = new Set(PRISMA_OPERATION_NAMES);
const RAW_CALLS = new Set(['$queryRaw', '$queryRawUnsafe', '$executeRaw', '$executeRawUnsafe']);
const SQL_TEXT = /\b(SELECT\s[\s\S]*\sFROM|INSERT INTO|UPDATE\s+\w+\s+SET|DELETE FROM)\b/;

const isRecords = (relative: string) => /\.records\.ts$/.test(relative) || relative === 'src/catalog/records.ts';

function functionLength(node: ts.Node, source: ts.SourceFile): number {
  const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
  const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
  return end - start + 1;
}

function functionName(node: ts.Node): string {
  if ((ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node)) && node.name) return node.name.getText();
  if (ts.isVariableDeclaration(node.parent) && ts.isIdentifier(node.parent.name)) return node.parent.name.text;
  if (ts.isPropertyAssignment(node.parent)) return node.parent.name.getText();
  return '(anonymous)';
}

/** Strongly connected components of more than one file (import cycles), Tarjan's. */
function cycles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    indices.set(node, index);
    low.set(node, index++);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (!indices.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, indices.get(next)!));
    }
    if (low.get(node) === indices.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) found.push(component.map(rel).sort());
    }
  };
  for (const node of graph.keys()) if (!indices.has(node)) visit(node);
  return found;
}

interface Figure {
  value: number;
  places: string[];
}
const figures: Record<string, Figure> = {};
const note = (name: string, place?: string) => {
  const figure = (figures[name] ??= { value: 0, places: [] });
  figure.value += 1;
  if (place) figure.places.push(place);
};
const setFigure = (name: string, value: number, places: string[] = []) => (figures[name] = { value, places });

const models = new Set(prismaModels());
const backendGraph = new Map<string, string[]>();
let dayConstants = 0;
for (const file of backendFiles) {
  const relative = rel(file);
  const source = parse(file);
  const from = moduleOf(relative);
  const imports = valueImports(file, source);
  backendGraph.set(file, imports.edges);
  for (const target of imports.files) {
    const targetRelative = rel(target);
    const to = moduleOf(targetRelative);
    if (!to || to === from) continue;
    if (boundaryViolation(relative, targetRelative))
      note('imports_of_private_files', `${relative} -> ${targetRelative}`);
    if (isRecords(targetRelative)) note('imports_of_other_modules_records', `${relative} -> ${targetRelative}`);
  }
  const generated = relative.startsWith('src/client/');
  const visitNode = (node: ts.Node) => {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      const operation = node.expression.name.text;
      const target = node.expression.expression;
      const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
      if (
        PRISMA_OPERATIONS.has(operation) &&
        ts.isPropertyAccessExpression(target) &&
        models.has(target.name.text) &&
        !isRecords(relative)
      )
        note('prisma_calls_outside_records', `${relative}:${line} ${target.name.text}.${operation}`);
      if (RAW_CALLS.has(operation) && !isRecords(relative))
        note('raw_sql_calls_outside_records', `${relative}:${line} ${operation}`);
    }
    if (
      (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateExpression(node)) &&
      SQL_TEXT.test(node.getText(source)) &&
      !isRecords(relative) &&
      !relative.startsWith('src/db/') &&
      !relative.startsWith('src/runtime/') &&
      !relative.startsWith('src/cli/')
    )
      note(
        'sql_text_outside_records',
        `${relative}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}`,
      );
    if (ts.isNewExpression(node) && node.expression.getText(source) === 'Date' && (node.arguments?.length ?? 0) === 0)
      note('new_date_now', `${relative}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}`);
    if (ts.isCallExpression(node) && node.expression.getText(source) === 'Date.now')
      note('date_now_calls', `${relative}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}`);
    if (
      ts.isVariableDeclaration(node) &&
      ts.isIdentifier(node.name) &&
      /^(DAY|HOUR|MINUTE|WEEK)_MS$/.test(node.name.text)
    ) {
      dayConstants += 1;
      note('duration_constant_definitions', `${relative} ${node.name.text}`);
    }
    if (
      (ts.isFunctionDeclaration(node) ||
        ts.isFunctionExpression(node) ||
        ts.isArrowFunction(node) ||
        ts.isMethodDeclaration(node)) &&
      !generated &&
      functionLength(node, source) > 120
    )
      note('functions_over_120_lines', `${relative} ${functionName(node)} (${functionLength(node, source)} lines)`);
    if (
      ts.isPropertyAssignment(node) &&
      node.name.getText(source) === 'handler' &&
      relative.endsWith('.routes.ts') &&
      (ts.isArrowFunction(node.initializer) || ts.isFunctionExpression(node.initializer))
    ) {
      note('route_handlers');
      // A handler that orchestrates: more than one awaited call (a thin one awaits its service once, at most).
      let awaits = 0;
      const count = (inner: ts.Node) => {
        if (ts.isAwaitExpression(inner)) awaits += 1;
        ts.forEachChild(inner, count);
      };
      count(node.initializer.body);
      if (awaits > 1)
        note(
          'route_handlers_orchestrating',
          `${relative}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1} (${awaits} awaits)`,
        );
    }
    ts.forEachChild(node, visitNode);
  };
  visitNode(source);
}
void dayConstants;

const backendCycles = cycles(backendGraph);
setFigure(
  'import_cycles_backend',
  backendCycles.length,
  backendCycles.map((cycle) => cycle.join(' <-> ')),
);

const dashboardGraph = new Map<string, string[]>();
for (const file of dashboardFiles) {
  const source = parse(file);
  dashboardGraph.set(file, valueImports(file, source).edges);
  const lines = source.getLineAndCharacterOfPosition(source.getEnd()).line + 1;
  if (lines > 400) note('dashboard_files_over_400_lines', `${rel(file)} (${lines} lines)`);
  const visitNode = (node: ts.Node) => {
    if (
      (ts.isFunctionDeclaration(node) || ts.isArrowFunction(node) || ts.isFunctionExpression(node)) &&
      functionLength(node, source) > 120
    )
      note('functions_over_120_lines', `${rel(file)} ${functionName(node)} (${functionLength(node, source)} lines)`);
    ts.forEachChild(node, visitNode);
  };
  visitNode(source);
}
const dashboardCycles = cycles(dashboardGraph);
setFigure(
  'import_cycles_dashboard',
  dashboardCycles.length,
  dashboardCycles.map((cycle) => cycle.join(' <-> ')),
);
for (const name of [
  'imports_of_private_files',
  'imports_of_other_modules_records',
  'prisma_calls_outside_records',
  'raw_sql_calls_outside_records',
  'sql_text_outside_records',
  'route_handlers_orchestrating',
  'new_date_now',
  'date_now_calls',
  'duration_constant_definitions',
  'functions_over_120_lines',
  'dashboard_files_over_400_lines',
])
  figures[name] ??= { value: 0, places: [] };

/** What `duplicates` (the workplace's tool, when this machine has it) says of src/, every pair listed. */
function duplicatesReport(): string | null {
  try {
    return execFileSync('duplicates', ['--repo', path.join(root, 'src'), '--most', '200', '--seconds', '60'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
  } catch {
    return null;
  }
}

// Written by tools, not by hand: the typed client's schema, Prisma's client, and the modules' faces
// (scripts/module-faces.ts writes every index.ts).
const GENERATED = /(^|\s)(client\/schema\.d\.ts|generated\/|[\w-]+\/index\.ts)[:\s]/;

const report = duplicatesReport();
if (report !== null) {
  const total = report.match(/^(\d+) pairs?/m);
  setFigure('duplicate_pairs_src', total ? Number(total[1]) : 0);
  // The pairs to look at (docs/architecture.md, "Modules"): not alike in shape only as the tool calls
  // boilerplate (a route's declaration, a zod object's first fields, a table's columns), and on one side at least
  // written by hand.
  const rows = report.split('\n').filter((line) => /^D\d+ /.test(line));
  const substantive = rows.filter((row) => {
    if (/\bboilerplate\b/.test(row)) return false;
    const [left = '', right = ''] = row.replace(/^D\d+ /, '').split(' ~ ');
    return !(GENERATED.test(` ${left} `) && GENERATED.test(` ${right.split(' ')[0]} `));
  });
  setFigure(
    'duplicate_pairs_src_to_look_at',
    substantive.length,
    substantive.map((row) => row.replace(/^D\d+ /, '')),
  );
}

/** The debt eslint.config.mjs lists by name (docs/architecture.md, "Modules"): places its rules still let pass. */
async function boundaryDebt() {
  const lists = (await import(path.join(root, 'eslint.config.mjs'))) as Record<string, string[]>;
  for (const [figure, list] of [
    ['debt_private_imports', 'PRIVATE_IMPORT_DEBT'],
    ['debt_data_access_outside_records', 'DATA_ACCESS_OUTSIDE_RECORDS_DEBT'],
    ['debt_http_below_services', 'HTTP_BELOW_SERVICES_DEBT'],
  ] as const)
    setFigure(figure, lists[list]!.length, lists[list]);
}

async function print() {
  await boundaryDebt();
  for (const [name, figure] of Object.entries(figures).sort(([a], [b]) => a.localeCompare(b))) {
    console.log(`${name}: ${figure.value}`);
    if (listPlaces) for (const place of figure.places) console.log(`  ${place}`);
  }
  if (process.argv.includes('--json'))
    console.log(
      JSON.stringify(Object.fromEntries(Object.entries(figures).map(([name, figure]) => [name, figure.value]))),
    );
}
print().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
