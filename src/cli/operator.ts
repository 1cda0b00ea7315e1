import { paths } from '../config';
import { resolveDatabase } from '../db/local-database';
import { migrate } from '../db/migrator';
import { createPrisma, type Db } from '../db/prisma';

/**
 * Runs an operator command against the service's database: the running embedded cluster when
 * `npm start` is up, a briefly started one when it is not, or DATABASE_URL.
 */
export async function withDatabase<T>(work: (prisma: Db) => Promise<T>): Promise<T> {
  const database = await resolveDatabase();
  const prisma = createPrisma(database.url, 2);
  try {
    await migrate(database.url, paths.migrations);
    return await work(prisma);
  } finally {
    await prisma.$disconnect();
    await database.stop();
  }
}

export function fail(message: string): never {
  console.error(message);
  process.exit(2);
}
