import type { Db } from '../db/prisma';
import { queryRows, type Statement } from '../db/sql';

const PING: Statement = { name: 'health_ping', text: 'SELECT 1' };

/** Resolves once the database has answered a statement. */
export async function pingDatabase(prisma: Db): Promise<void> {
  await queryRows(prisma, PING, []);
}
