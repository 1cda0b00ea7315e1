import path from 'node:path';
import { config, paths } from '../config';
import { startEmbeddedPostgres, type LocalDatabase } from '../runtime/embedded-postgres';

/**
 * The database this process should use: DATABASE_URL when set (nothing embedded is started),
 * otherwise the project's embedded PostgreSQL, started or reused.
 */
export async function resolveDatabase(log?: (line: string) => void): Promise<LocalDatabase & { embedded: boolean }> {
  if (config.databaseUrl) return { url: config.databaseUrl, stop: async () => undefined, embedded: false };
  const database = await startEmbeddedPostgres({
    dataDir: path.join(paths.data, 'postgres'),
    port: config.embeddedPostgresPort,
    database: 'billing',
    log,
  });
  return { ...database, embedded: true };
}
