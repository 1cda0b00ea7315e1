import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { paths, projectRoot } from '../config';
import { resolveDatabase } from '../db/local-database';

/**
 * Writes a new SQL migration for the difference between the schema the migrations already produce
 * (kept in prisma/migrations/schema-snapshot.prisma) and the current prisma/schema folder.
 * Prisma's migrate commands need the native engine, which cannot be downloaded here, so the diff is
 * schema-to-schema; Prisma's wasm engine needs a live connection, hence the database.
 */
const schemaDir = path.join(projectRoot, 'prisma', 'schema');
const snapshotFile = path.join(paths.migrations, 'schema-snapshot.prisma');

function currentSchemaText(): string {
  return fs
    .readdirSync(schemaDir)
    .filter((file) => file.endsWith('.prisma'))
    .sort()
    .map((file) => `// ---- ${file}\n${fs.readFileSync(path.join(schemaDir, file), 'utf8')}`)
    .join('\n');
}

function timestamp(): string {
  return new Date().toISOString().replace(/[-:T]/g, '').slice(0, 14);
}

async function main(): Promise<void> {
  const name = process.argv[2];
  if (!name || !/^[a-z0-9_]+$/.test(name)) {
    console.error('Usage: npm run db:diff -- <name_in_snake_case>');
    process.exit(2);
  }
  const database = await resolveDatabase();
  try {
    const from = fs.existsSync(snapshotFile) ? ['--from-schema-datamodel', snapshotFile] : ['--from-empty'];
    const sql = execFileSync(
      path.join(projectRoot, 'node_modules', '.bin', 'prisma'),
      ['migrate', 'diff', ...from, '--to-schema-datamodel', schemaDir, '--script'],
      { cwd: projectRoot, encoding: 'utf8', env: { ...process.env, DATABASE_URL: database.url } },
    );
    if (!/^(CREATE|ALTER|DROP)/m.test(sql)) {
      console.log('No schema changes: no migration written.');
      return;
    }
    const dir = path.join(paths.migrations, `${timestamp()}_${name}`);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'migration.sql'), sql.replace(/^-- CreateSchema\nCREATE SCHEMA IF NOT EXISTS "public";\n\n/m, ''));
    fs.writeFileSync(snapshotFile, currentSchemaText());
    console.log(`Wrote ${path.relative(projectRoot, dir)}/migration.sql; apply it with npm run db:migrate.`);
  } finally {
    await database.stop();
  }
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
