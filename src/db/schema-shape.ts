import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { Client } from 'pg';
import { projectRoot } from '../config';

/**
 * What Prisma's schema describes of a database, as sorted text lines: tables, columns (type,
 * nullability, default), indexes and constraints of the public schema. Triggers and functions that
 * migrations add by hand (bump_updated_ms) are not in the Prisma schema and are left out.
 */
export async function describeSchema(databaseUrl: string): Promise<string[]> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const columns = await client.query<{ line: string }>(`
      SELECT format('column %s.%s %s %s default=%s', table_name, column_name, udt_name, is_nullable, coalesce(column_default, '-')) AS line
      FROM information_schema.columns WHERE table_schema = 'public' AND table_name <> '_prisma_migrations'`);
    const indexes = await client.query<{ line: string }>(`
      SELECT 'index ' || indexdef AS line FROM pg_indexes WHERE schemaname = 'public' AND tablename <> '_prisma_migrations'`);
    const constraints = await client.query<{ line: string }>(`
      SELECT format('constraint %s %s %s', rel.relname, con.conname, pg_get_constraintdef(con.oid)) AS line
      FROM pg_constraint con JOIN pg_class rel ON rel.oid = con.conrelid JOIN pg_namespace ns ON ns.oid = rel.relnamespace
      WHERE ns.nspname = 'public' AND rel.relname <> '_prisma_migrations'`);
    const types = await client.query<{ line: string }>(`
      SELECT format('enum %s %s', t.typname, string_agg(e.enumlabel, ',' ORDER BY e.enumsortorder)) AS line
      FROM pg_type t JOIN pg_enum e ON e.enumtypid = t.oid JOIN pg_namespace ns ON ns.oid = t.typnamespace
      WHERE ns.nspname = 'public' GROUP BY t.typname`);
    return [...columns.rows, ...indexes.rows, ...constraints.rows, ...types.rows].map((row) => row.line).sort();
  } finally {
    await client.end();
  }
}

/**
 * The SQL that takes a database from the Prisma schema in `fromDir` (or from nothing) to the one in
 * `toDir`. Prisma's wasm schema engine diffs two datamodels but needs a live connection: `databaseUrl`.
 */
export function schemaDiffSql(databaseUrl: string, fromDir: string | null, toDir: string): string {
  const from = fromDir ? ['--from-schema-datamodel', fromDir] : ['--from-empty'];
  const sql = execFileSync(
    path.join(projectRoot, 'node_modules', '.bin', 'prisma'),
    ['migrate', 'diff', ...from, '--to-schema-datamodel', toDir, '--script'],
    {
      cwd: projectRoot,
      encoding: 'utf8',
      env: { ...process.env, DATABASE_URL: databaseUrl },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  return sql.replace(/^-- CreateSchema\nCREATE SCHEMA IF NOT EXISTS "public";\n\n/m, '');
}
