import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { freshDatabase } from '../support/fresh-database';
import { paths } from '../../src/config';
import { migrate, readMigrations } from '../../src/db/migrator';
import { describeSchema, schemaDiffSql } from '../../src/db/schema-shape';

async function query<T extends Record<string, unknown>>(url: string, sql: string): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

describe('migrations', () => {
  it('applies every migration once, records it like prisma migrate deploy, and is a no-op the second time', async () => {
    const url = await freshDatabase('migrate_twice');
    const files = readMigrations(paths.migrations);
    expect(files.length).toBeGreaterThan(0);

    const first = await migrate(url, paths.migrations);
    expect(first).toEqual({ applied: files.map((file) => file.name), alreadyApplied: 0 });
    const second = await migrate(url, paths.migrations);
    expect(second).toEqual({ applied: [], alreadyApplied: files.length });

    const rows = await query<{ migration_name: string; checksum: string; finished_at: Date | null }>(
      url,
      'SELECT migration_name, checksum, finished_at FROM _prisma_migrations ORDER BY migration_name',
    );
    expect(rows.map((row) => [row.migration_name, row.checksum])).toEqual(
      files.map((file) => [file.name, file.checksum]),
    );
    expect(rows.every((row) => row.finished_at !== null)).toBe(true);
    const tables = await query<{ tablename: string }>(
      url,
      "SELECT tablename FROM pg_tables WHERE schemaname = 'public'",
    );
    expect(tables.map((row) => row.tablename)).toEqual(
      expect.arrayContaining(['accounts', 'api_keys', 'customers', 'events']),
    );
  });

  it('keeps proration off for accounts that existed before it, and on for new ones (docs/decisions.md §25)', async () => {
    const url = await freshDatabase('migrate_proration_default');
    const migration = '20261124203454_subscription_prorations';
    const before = fs.mkdtempSync(path.join(os.tmpdir(), 'migrations-'));
    for (const file of readMigrations(paths.migrations).filter((candidate) => candidate.name < migration))
      fs.cpSync(path.join(paths.migrations, file.name), path.join(before, file.name), { recursive: true });
    await migrate(url, before);
    await query(url, "INSERT INTO accounts (id, name) VALUES ('acct_before', 'Before')");
    await migrate(url, paths.migrations);
    await query(url, "INSERT INTO accounts (id, name) VALUES ('acct_after', 'After')");
    const rows = await query<{ id: string; proration_behavior: string }>(
      url,
      'SELECT id, proration_behavior FROM accounts ORDER BY id',
    );
    expect(rows).toEqual([
      { id: 'acct_after', proration_behavior: 'create_prorations' },
      { id: 'acct_before', proration_behavior: 'none' },
    ]);
  });

  it('refuses to run when an applied migration file changed, and applies nothing', async () => {
    const url = await freshDatabase('migrate_tampered');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'migrations-'));
    const write = (name: string, sql: string) => {
      fs.mkdirSync(path.join(dir, name), { recursive: true });
      fs.writeFileSync(path.join(dir, name, 'migration.sql'), sql);
    };
    write('001_first', 'CREATE TABLE first_table (id int);');
    await migrate(url, dir);
    write('001_first', 'CREATE TABLE first_table (id bigint);');
    write('002_second', 'CREATE TABLE second_table (id int);');
    await expect(migrate(url, dir)).rejects.toThrow(/001_first was changed after it was applied/);
    const tables = await query<{ tablename: string }>(
      url,
      "SELECT tablename FROM pg_tables WHERE schemaname = 'public'",
    );
    expect(tables.map((row) => row.tablename)).not.toContain('second_table');
  });

  it('rolls back everything when a migration fails', async () => {
    const url = await freshDatabase('migrate_failing');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'migrations-'));
    fs.mkdirSync(path.join(dir, '001_ok'));
    fs.writeFileSync(path.join(dir, '001_ok', 'migration.sql'), 'CREATE TABLE ok_table (id int);');
    fs.mkdirSync(path.join(dir, '002_broken'));
    fs.writeFileSync(path.join(dir, '002_broken', 'migration.sql'), 'CREATE TABLE broken (id nonsense_type);');
    await expect(migrate(url, dir)).rejects.toThrow(/nonsense_type/);
    const tables = await query<{ tablename: string }>(
      url,
      "SELECT tablename FROM pg_tables WHERE schemaname = 'public'",
    );
    expect(tables.map((row) => row.tablename)).not.toContain('ok_table');
  });

  it('produce exactly the database prisma/schema describes (a schema change without its migration fails here)', async () => {
    const fromMigrations = await freshDatabase('drift_migrations');
    await migrate(fromMigrations, paths.migrations);
    const fromSchema = await freshDatabase('drift_schema');
    const client = new Client({ connectionString: fromSchema });
    await client.connect();
    await client.query(schemaDiffSql(fromSchema, null, path.join(paths.migrations, '..', 'schema')));
    await client.end();

    const migrated = await describeSchema(fromMigrations);
    const described = await describeSchema(fromSchema);
    expect(migrated.length).toBeGreaterThan(100);
    expect(migrated.filter((line) => !described.includes(line))).toEqual([]);
    expect(described.filter((line) => !migrated.includes(line))).toEqual([]);
  });
});
