import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { Client } from 'pg';
import { paths, projectRoot } from '../config';
import { resolveDatabase } from '../db/local-database';
import { migrate } from '../db/migrator';
import { describeSchema, schemaDiffSql } from '../db/schema-shape';
import { fail, parseCommandLine, refuse, runCommand } from './operator';

/**
 * `npm run db:diff -- <name> [--only prisma/schema/x.prisma ...]`
 *
 * Writes a new SQL migration for the difference between the schema the migrations produce and
 * prisma/schema/. Prisma's wasm engine cannot read a schema back from a database or replay the
 * migrations folder (both need the native engine, not downloadable here), so the "from" side is the
 * schema committed at git HEAD, after checking on scratch databases that it is exactly what the
 * migrations produce (test/operations/migrations.test.ts holds every commit to that). With --only, just those
 * files are taken from the working tree, so work in progress in other files stays out.
 */
const schemaDir = path.join(projectRoot, 'prisma', 'schema');

function prismaFiles(dir: string): string[] {
  return fs.existsSync(dir) ? fs.readdirSync(dir).filter((file) => file.endsWith('.prisma')) : [];
}

function timestamp(): string {
  return new Date().toISOString().replace(/[-:T]/g, '').slice(0, 14);
}

/** prisma/schema/ as committed at HEAD, written to `dir`. */
function writeCommittedSchema(dir: string): void {
  const listing = execFileSync('git', ['ls-tree', '--name-only', 'HEAD', 'prisma/schema/'], {
    cwd: projectRoot,
    encoding: 'utf8',
  });
  for (const file of listing.split('\n').filter((line) => line.endsWith('.prisma'))) {
    fs.writeFileSync(
      path.join(dir, path.basename(file)),
      execFileSync('git', ['show', `HEAD:${file}`], { cwd: projectRoot }),
    );
  }
}

async function scratchDatabase(adminUrl: string, name: string): Promise<string> {
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name}`);
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function dropDatabases(adminUrl: string, names: string[]): Promise<void> {
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  for (const name of names) await admin.query(`DROP DATABASE IF EXISTS ${name}`);
  await admin.end();
}

const usage = `Usage: npm run db:diff -- <name_in_snake_case> [--only prisma/schema/<file>.prisma ...]
  Writes prisma/migrations/<timestamp>_<name>/migration.sql for the schema changes since git HEAD (docs/architecture.md).
Exit codes: 0 done (or nothing to write), 1 failed, 2 bad usage (docs/operations.md).`;

async function main(): Promise<void> {
  const { values, positionals } = parseCommandLine(
    usage,
    { only: { type: 'string', multiple: true } },
    { allowPositionals: true },
  );
  const name = positionals[0];
  if (!name || !/^[a-z0-9_]+$/.test(name) || positionals.length > 1) fail(usage);
  const only = (values.only ?? []).map((file) => path.basename(file));
  for (const file of only) {
    if (!fs.existsSync(path.join(schemaDir, file))) refuse(`No schema file prisma/schema/${file}`);
  }

  const work = fs.mkdtempSync(path.join(projectRoot, 'prisma', '.target-'));
  const database = await resolveDatabase();
  const scratch = ['db_diff_migrations', 'db_diff_committed'];
  try {
    const committed = path.join(work, 'committed');
    const target = path.join(work, 'target');
    fs.mkdirSync(committed);
    fs.mkdirSync(target);
    writeCommittedSchema(committed);
    // "to" = the committed schema with the chosen files taken from the working tree (all of them without --only).
    if (only.length)
      for (const file of prismaFiles(committed)) fs.copyFileSync(path.join(committed, file), path.join(target, file));
    for (const file of only.length ? only : prismaFiles(schemaDir))
      fs.copyFileSync(path.join(schemaDir, file), path.join(target, file));

    const byMigrations = await scratchDatabase(database.url, scratch[0]!);
    await migrate(byMigrations, paths.migrations);
    const byCommitted = await scratchDatabase(database.url, scratch[1]!);
    const client = new Client({ connectionString: byCommitted });
    await client.connect();
    await client.query(schemaDiffSql(byCommitted, null, committed));
    await client.end();
    if (JSON.stringify(await describeSchema(byMigrations)) !== JSON.stringify(await describeSchema(byCommitted))) {
      throw new Error(
        'The migrations do not produce the schema committed at HEAD (an uncommitted migration, or a committed schema change without one). ' +
          'Commit or remove the pending migration first, then run db:diff again.',
      );
    }

    const sql = schemaDiffSql(database.url, committed, target);
    if (!/^(CREATE|ALTER|DROP)/m.test(sql)) {
      console.log('No schema changes: no migration written.');
      return;
    }
    const dir = path.join(paths.migrations, `${timestamp()}_${name}`);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'migration.sql'), sql);
    console.log(
      `Wrote ${path.relative(projectRoot, dir)}/migration.sql; apply it with npm run db:migrate, and commit it with the schema.`,
    );
  } finally {
    await dropDatabases(database.url, scratch).catch(() => undefined);
    await database.stop();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

runCommand(main);
