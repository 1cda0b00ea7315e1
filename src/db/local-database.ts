import path from 'node:path';
import { config, paths } from '../config';
import { startEmbeddedPostgres, type LocalDatabase } from '../runtime/embedded-postgres';

/**
 * The database this process should use: DATABASE_URL when set (nothing embedded is started),
 * otherwise the project's embedded PostgreSQL, started or reused (`detached`: a cluster started runs
 * in a process group of its own, startEmbeddedPostgres).
 */
export async function resolveDatabase(
  log?: (line: string) => void,
  options: { detached?: boolean } = {},
): Promise<LocalDatabase & { embedded: boolean }> {
  if (config.databaseUrl) return { url: config.databaseUrl, stop: async () => undefined, embedded: false };
  const database = await startEmbeddedPostgres({
    dataDir: path.join(paths.data, 'postgres'),
    port: config.embeddedPostgresPort,
    database: 'billing',
    log,
    detached: options.detached ?? false,
  });
  return { ...database, embedded: true };
}
