import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { execFileSync } from 'node:child_process';
import { paths, projectRoot } from '../config';
import { resolveDatabase } from '../db/local-database';

/**
 * `npm run db:diff -- <name> [--only prisma/schema/x.prisma ...]`
 *
 * Writes a new SQL migration for the difference between the schema the migrations already produce
 * (a copy kept in prisma/schema-snapshot/, outside the migrations folder so Prisma's own tools ignore it) and prisma/schema/. With --only, just those
 * schema files are taken from prisma/schema/, so work in progress in other files stays out.
 * Prisma's own migrate commands need a native engine that cannot be downloaded here, so the diff is
 * schema-to-schema; Prisma's wasm engine needs a live connection, hence the database.
 */
const schemaDir = path.join(projectRoot, 'prisma', 'schema');
const snapshotDir = path.join(projectRoot, 'prisma', 'schema-snapshot');
const lockFile = path.join(projectRoot, 'prisma', '.db-diff.lock');

function prismaFiles(dir: string): string[] {
  return fs.existsSync(dir) ? fs.readdirSync(dir).filter((file) => file.endsWith('.prisma')) : [];
}

function timestamp(): string {
  return new Date().toISOString().replace(/[-:T]/g, '').slice(0, 14);
}

async function withLock<T>(work: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      fs.closeSync(fs.openSync(lockFile, 'wx'));
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`${lockFile} is held; remove it if no db:diff is running.`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  try {
    return await work();
  } finally {
    fs.rmSync(lockFile, { force: true });
  }
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { only: { type: 'string', multiple: true } } });
  const name = positionals[0];
  if (!name || !/^[a-z0-9_]+$/.test(name)) {
    console.error('Usage: npm run db:diff -- <name_in_snake_case> [--only prisma/schema/<file>.prisma ...]');
    process.exit(2);
  }
  const only = (values.only ?? []).map((file) => path.basename(file));
  for (const file of only) {
    if (!fs.existsSync(path.join(schemaDir, file))) throw new Error(`No schema file prisma/schema/${file}`);
  }

  await withLock(async () => {
    // "to" = the snapshot with the chosen files taken from prisma/schema (all of them without --only).
    const target = fs.mkdtempSync(path.join(projectRoot, 'prisma', '.target-'));
    try {
      for (const file of prismaFiles(snapshotDir)) fs.copyFileSync(path.join(snapshotDir, file), path.join(target, file));
      for (const file of only.length ? only : prismaFiles(schemaDir)) fs.copyFileSync(path.join(schemaDir, file), path.join(target, file));
      if (!only.length) {
        for (const file of prismaFiles(target)) if (!fs.existsSync(path.join(schemaDir, file))) fs.rmSync(path.join(target, file));
      }

      const database = await resolveDatabase();
      let sql: string;
      try {
        const from = prismaFiles(snapshotDir).length ? ['--from-schema-datamodel', snapshotDir] : ['--from-empty'];
        sql = execFileSync(
          path.join(projectRoot, 'node_modules', '.bin', 'prisma'),
          ['migrate', 'diff', ...from, '--to-schema-datamodel', target, '--script'],
          { cwd: projectRoot, encoding: 'utf8', env: { ...process.env, DATABASE_URL: database.url } },
        );
      } finally {
        await database.stop();
      }
      if (!/^(CREATE|ALTER|DROP)/m.test(sql)) {
        console.log('No schema changes: no migration written.');
        return;
      }
      const dir = path.join(paths.migrations, `${timestamp()}_${name}`);
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, 'migration.sql'), sql.replace(/^-- CreateSchema\nCREATE SCHEMA IF NOT EXISTS "public";\n\n/m, ''));
      fs.rmSync(snapshotDir, { recursive: true, force: true });
      fs.renameSync(target, snapshotDir);
      console.log(`Wrote ${path.relative(projectRoot, dir)}/migration.sql; apply it with npm run db:migrate.`);
    } finally {
      fs.rmSync(target, { recursive: true, force: true });
    }
  });
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
