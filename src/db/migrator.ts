import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';

export interface MigrationFile {
  name: string;
  sql: string;
  checksum: string;
}

export interface MigrateResult {
  applied: string[];
  alreadyApplied: number;
}

/** Arbitrary constant: serialises concurrent migrators (two `npm start`s, parallel test runs). */
const MIGRATION_LOCK_ID = 72_616_473;

/** Migrations in Prisma's layout: `<dir>/<timestamp>_<name>/migration.sql`, applied in name order. */
export function readMigrations(dir: string): MigrationFile[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && fs.existsSync(path.join(dir, entry.name, 'migration.sql')))
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const sql = fs.readFileSync(path.join(dir, name, 'migration.sql'));
      return { name, sql: sql.toString('utf8'), checksum: crypto.createHash('sha256').update(sql).digest('hex') };
    });
}

/**
 * Applies pending migrations the way `prisma migrate deploy` does and records each in
 * `_prisma_migrations` (same table, same sha256 checksum), so the native Prisma engine can take over.
 * Everything runs in one transaction: a failing migration leaves the database as it was.
 * Refuses to run when an applied migration's file has changed since it was applied.
 */
export async function migrate(databaseUrl: string, dir: string): Promise<MigrateResult> {
  const migrations = readMigrations(dir);
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_ID]);
    await client.query(`
      CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
        "id"                  VARCHAR(36) PRIMARY KEY NOT NULL,
        "checksum"            VARCHAR(64) NOT NULL,
        "finished_at"         TIMESTAMPTZ,
        "migration_name"      VARCHAR(255) NOT NULL,
        "logs"                TEXT,
        "rolled_back_at"      TIMESTAMPTZ,
        "started_at"          TIMESTAMPTZ NOT NULL DEFAULT now(),
        "applied_steps_count" INTEGER NOT NULL DEFAULT 0
      )`);
    const { rows } = await client.query<{ migration_name: string; checksum: string }>(
      `SELECT migration_name, checksum FROM "_prisma_migrations"
        WHERE rolled_back_at IS NULL AND finished_at IS NOT NULL`,
    );
    const applied = new Map(rows.map((row) => [row.migration_name, row.checksum]));
    for (const migration of migrations) {
      const checksum = applied.get(migration.name);
      if (checksum !== undefined && checksum !== migration.checksum) {
        throw new Error(
          `Migration ${migration.name} was changed after it was applied (checksum mismatch). ` +
            'Applied migrations are immutable: restore the file and add a new migration instead.',
        );
      }
    }
    const pending = migrations.filter((migration) => !applied.has(migration.name));
    for (const migration of pending) {
      await client.query(migration.sql);
      await client.query(
        `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, finished_at, applied_steps_count)
         VALUES ($1, $2, $3, now(), now(), 1)`,
        [crypto.randomUUID(), migration.checksum, migration.name],
      );
    }
    await client.query('COMMIT');
    return { applied: pending.map((migration) => migration.name), alreadyApplied: migrations.length - pending.length };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    await client.end();
  }
}
