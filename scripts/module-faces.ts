// Codemod (`npx tsx scripts/module-faces.ts`, from the repository's root): every import of another module's
// private file in backend code is redirected to that module's index.ts, and each index.ts is written anew to
// re-export exactly the names other modules use (type-only names as `export type`). What may stay direct is
// scripts/module-boundaries.mjs's (schemas between schemas, the workflow-shared pure files). Run it again after
// a merge: it reads the imports already going through an index.ts too, so its answer is the same.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

type Kind = 'value' | 'type';

async function main() {
  const boundaries = await import('./module-boundaries.mjs');
  const { root, moduleOf } = boundaries;
  const rel = (file: string) => path.relative(root, file);
  const workflowShared = new Set(boundaries.WORKFLOW_SHARED.map((file) => `${file}.ts`));

  const config = ts.parseJsonConfigFileContent(
    ts.readConfigFile(path.join(root, 'tsconfig.json'), ts.sys.readFile).config,
    ts.sys,
    root,
  );
  const program = ts.createProgram(config.fileNames, config.options);
  const checker = program.getTypeChecker();

  // module -> file of the module (relative to its folder, no extension) -> name -> kind
  const wanted = new Map<string, Map<string, Map<string, Kind>>>();
  const want = (module: string, file: string, name: string, kind: Kind) => {
    const files = wanted.get(module) ?? wanted.set(module, new Map()).get(module)!;
    const names = files.get(file) ?? files.set(file, new Map()).get(file)!;
    if (names.get(name) !== 'value') names.set(name, kind);
  };
  const edits = new Map<string, { start: number; end: number; text: string }[]>();
  /** Files (relative) whose value imports reach an index.ts once rewritten. */
  const importsIndex = new Set<string>();
  /** Value imports between files (relative), for the load order of each index.ts. */
  const valueEdges = new Map<string, string[]>();

  const isTypeOnlySymbol = (symbol: ts.Symbol) => {
    const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
    return (target.flags & ts.SymbolFlags.Value) === 0;
  };
  /** The module's file that exports a name an index.ts re-exports (through any index.ts in between). */
  const fileBehindIndex = (symbol: ts.Symbol): string | null => {
    let current: ts.Symbol | undefined = symbol;
    for (let hop = 0; hop < 10 && current; hop++) {
      current = current.flags & ts.SymbolFlags.Alias ? checker.getImmediateAliasedSymbol(current) : undefined;
      const declaration = current?.declarations?.[0];
      if (!declaration) return null;
      const file = rel(declaration.getSourceFile().fileName);
      if (path.basename(file) !== 'index.ts') return file;
    }
    return null;
  };

  for (const source of program.getSourceFiles()) {
    const relative = rel(source.fileName);
    if (relative.startsWith('..') || relative.includes('node_modules')) continue;
    if (!boundaries.isCheckedImporter(relative)) continue;
    if (moduleOf(relative) && path.basename(relative) === 'index.ts') continue;
    const from = moduleOf(relative);
    const edges: string[] = [];
    valueEdges.set(relative, edges);
    for (const statement of source.statements) {
      if (!(ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement))) continue;
      const spec = statement.moduleSpecifier;
      if (!spec || !ts.isStringLiteral(spec)) continue;
      const target = boundaries.resolveImport(relative, spec.text);
      if (!target) continue;
      let bindings: readonly (ts.ImportSpecifier | ts.ExportSpecifier)[] = [];
      let declarationTypeOnly: boolean;
      if (ts.isImportDeclaration(statement)) {
        const clause = statement.importClause;
        declarationTypeOnly = !!clause?.isTypeOnly;
        if (clause?.namedBindings && ts.isNamedImports(clause.namedBindings)) bindings = clause.namedBindings.elements;
        if (clause?.name || (clause?.namedBindings && ts.isNamespaceImport(clause.namedBindings)) || !clause)
          bindings = [];
      } else {
        declarationTypeOnly = statement.isTypeOnly;
        if (statement.exportClause && ts.isNamedExports(statement.exportClause))
          bindings = statement.exportClause.elements;
      }
      const kinds = bindings.map((element) => {
        const symbol = checker.getSymbolAtLocation(element.name);
        return declarationTypeOnly || element.isTypeOnly || (symbol ? isTypeOnlySymbol(symbol) : false)
          ? ('type' as const)
          : ('value' as const);
      });
      const carriesValues = bindings.length === 0 ? !declarationTypeOnly : kinds.includes('value');
      const to = moduleOf(target);
      const isIndexTarget = path.basename(target) === 'index.ts';
      if (carriesValues) edges.push(target);

      if (to && to !== from && isIndexTarget) {
        // Already through the index (a run before this one): keep what it asks of the module.
        if (carriesValues) importsIndex.add(relative);
        bindings.forEach((element, at) => {
          const symbol = checker.getSymbolAtLocation(element.name);
          const file = symbol && fileBehindIndex(symbol);
          if (!file || moduleOf(file) !== to)
            throw new Error(`${relative}: cannot tell where ${to} exports ${element.name.text}`);
          want(
            to,
            path.relative(path.join('src', to), file).replace(/\.tsx?$/, ''),
            (element.propertyName ?? element.name).text,
            kinds[at]!,
          );
        });
        continue;
      }
      if (!to || to === from || !boundaries.boundaryViolation(relative, target)) continue;
      // Left as they are, for eslint.config.mjs's list: a schemas file must not load an index.ts, and workflow
      // code bundles the workflow-shared files with everything they import.
      if (boundaries.isSchemas(relative) || workflowShared.has(relative)) continue;
      if (bindings.length === 0) throw new Error(`${relative}: default, namespace or bare import of ${spec.text}`);
      const inModule = path.relative(path.join('src', to), target).replace(/\.tsx?$/, '');
      bindings.forEach((element, at) => want(to, inModule, (element.propertyName ?? element.name).text, kinds[at]!));
      let specifier = path.relative(path.dirname(relative), path.join('src', to));
      if (!specifier.startsWith('.')) specifier = `./${specifier}`;
      if (carriesValues) importsIndex.add(relative);
      (edits.get(source.fileName) ?? edits.set(source.fileName, []).get(source.fileName)!).push({
        start: spec.getStart(source),
        end: spec.getEnd(),
        text: `'${specifier}'`,
      });
    }
  }

  // A file that loads no index.ts, directly or through what it imports, can go first in its module's index:
  // while it loads, no other module's index runs, so whoever reads its names at load time finds them.
  const loadsAnIndex = new Map<string, boolean>();
  const reachesIndex = (file: string, seen = new Set<string>()): boolean => {
    if (loadsAnIndex.has(file)) return loadsAnIndex.get(file)!;
    if (seen.has(file)) return false;
    seen.add(file);
    const answer =
      importsIndex.has(file) ||
      (valueEdges.get(file) ?? []).some((next) => path.basename(next) === 'index.ts' || reachesIndex(next, seen));
    loadsAnIndex.set(file, answer);
    return answer;
  };

  for (const [file, list] of edits) {
    let text = fs.readFileSync(file, 'utf8');
    for (const edit of list.sort((a, b) => b.start - a.start))
      text = text.slice(0, edit.start) + edit.text + text.slice(edit.end);
    fs.writeFileSync(file, text);
  }
  const written = [...edits.keys()];
  for (const [module, files] of [...wanted].sort(([a], [b]) => a.localeCompare(b))) {
    const rank = (file: string) => {
      const relative = `src/${module}/${file}.ts`;
      if (!reachesIndex(relative)) return boundaries.isSchemas(relative) ? 0 : 1;
      return /\.records$/.test(file) ? 2 : /\.routes$/.test(file) ? 4 : 3;
    };
    const exported = new Map<string, string>();
    const lines: string[] = [];
    for (const [file, names] of [...files].sort(([a], [b]) => rank(a) - rank(b) || a.localeCompare(b))) {
      for (const name of names.keys()) {
        if (exported.has(name))
          throw new Error(`${module}: ${name} wanted from both ${exported.get(name)} and ${file}`);
        exported.set(name, file);
      }
      const values = [...names]
        .filter(([, kind]) => kind === 'value')
        .map(([name]) => name)
        .sort();
      const types = [...names]
        .filter(([, kind]) => kind === 'type')
        .map(([name]) => name)
        .sort();
      if (values.length) lines.push(`export { ${values.join(', ')} } from './${file}';`);
      if (types.length) lines.push(`export type { ${types.join(', ')} } from './${file}';`);
    }
    const index = path.join(root, 'src', module, 'index.ts');
    const header = [
      `// The ${module} module's public face: what other modules use of it (written by scripts/module-faces.ts;`,
      `// docs/architecture.md, "Modules"). Files that load no other module's index.ts come first.`,
    ].join('\n');
    fs.writeFileSync(index, `${header}\n${lines.join('\n')}\n`);
    written.push(index);
    console.log(
      `${module}: ${[...files.values()].reduce((n, names) => n + names.size, 0)} names from ${files.size} files`,
    );
  }
  execFileSync(path.join(root, 'node_modules', '.bin', 'prettier'), ['--write', '--log-level', 'warn', ...written], {
    stdio: 'inherit',
  });
  console.log(`${edits.size} files' imports rewritten`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
