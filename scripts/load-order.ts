// `npx tsx scripts/load-order.ts`: loads every backend file of src/ as the first one a process requires, and prints
// the ones that fail (a JSON line: { files, failures }). A module's files import other modules' index files, so
// the modules form load-order cycles that the import graph of names (scripts/structure.ts) does not show; a value
// read at load time (a column list, a schema) from a file of the cycle not yet evaluated then fails with "Cannot
// access ... before initialization", only in the process that happened to load that file first. Between two
// files the source's entries leave Node's require cache (the packages' and Prisma's generated client stay: they
// are not part of the cycles).
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '..');
const sourceRoots = ['src', 'workflows', 'activities'].map((dir) => path.join(root, dir) + path.sep);
/** Prisma's generated client is a package in all but its place: it imports nothing of ours. */
const generated = path.join(root, 'src', 'generated') + path.sep;

/** The commands' entry points do their work when loaded: their commands load them. */
const RUNS_WHEN_LOADED = /^src\/cli\//;

function backendFiles(dir: string, out: string[] = []): string[] {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    const relative = path.relative(root, full);
    if (entry.isDirectory()) {
      if (!['dashboard', 'generated'].includes(entry.name)) backendFiles(full, out);
    } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') && !RUNS_WHEN_LOADED.test(relative))
      out.push(relative);
  }
  return out;
}

function forgetSource(): void {
  for (const key of Object.keys(require.cache))
    if (sourceRoots.some((dir) => key.startsWith(dir)) && !key.startsWith(generated)) delete require.cache[key];
}

const files = backendFiles(path.join(root, 'src')).sort();
const failures: { file: string; error: string }[] = [];
for (const file of files) {
  forgetSource();
  try {
    // A require, not an import: each file is loaded afresh after the cache is emptied, and in this order.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    require(path.join(root, file));
  } catch (error) {
    failures.push({ file, error: error instanceof Error ? error.message : String(error) });
  }
}
console.log(JSON.stringify({ files: files.length, failures }));
