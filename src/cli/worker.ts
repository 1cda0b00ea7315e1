import { NativeConnection } from '@temporalio/worker';
import { config } from '../config';
import { resolveDatabase } from '../db/local-database';
import { createPrisma } from '../db/prisma';
import { logger } from '../http/logger';
import { createWorker } from '../temporal/worker';

/** Production worker entry point (task queue `billing`). Temporal's worker handles SIGINT/SIGTERM itself. */
async function main(): Promise<void> {
  const database = await resolveDatabase();
  const prisma = createPrisma(database.url);
  const connection = await NativeConnection.connect({ address: config.temporalAddress });
  const worker = await createWorker({ prisma, connection });
  logger.info({ taskQueue: config.taskQueue, namespace: config.temporalNamespace }, 'worker running');
  await worker.run();
  await connection.close();
  await prisma.$disconnect();
  await database.stop();
  logger.info('worker stopped');
}

main().catch((error) => {
  logger.fatal({ err: error }, 'worker failed');
  process.exit(1);
});
