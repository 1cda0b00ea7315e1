import { config } from '../config';
import { resolveDatabase } from '../db/local-database';
import { createPrisma } from '../db/prisma';
import { logger } from '../http/logger';
import { listen } from '../server';
import { connectTemporalClient } from '../temporal/client';
import { onShutdown } from './shutdown';

/** Production API entry point: DATABASE_URL, TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, PORT. */
async function main(): Promise<void> {
  const database = await resolveDatabase();
  const prisma = createPrisma(database.url);
  const temporal = await connectTemporalClient();
  const server = await listen({ prisma, temporal: temporal.client }, config.port);
  logger.info({ port: config.port }, 'api listening');
  onShutdown(async () => {
    await new Promise((resolve) => server.close(resolve));
    server.closeAllConnections();
    await prisma.$disconnect();
    await temporal.connection.close();
    await database.stop();
  });
}

main().catch((error) => {
  logger.fatal({ err: error }, 'api failed to start');
  process.exit(1);
});
