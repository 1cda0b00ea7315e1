import cluster from 'node:cluster';
import { config } from '../config';
import { resolveDatabase } from '../db/local-database';
import { createPrisma } from '../db/prisma';
import { logger } from '../http/logger';
import { listenForApiKeyEndsAt } from '../http/auth';
import { hearGatewayChanges } from '../use-cases';
import { closeGracefully, listen } from '../server';
import { connectTemporalClient } from '../temporal';
import { onShutdown } from './shutdown';
import { refuseUnsafeProductionStart } from '../lib/secrets';
import { serveClusterMetrics } from '../observability';
import { flushAuditEntries } from '../audit';

/**
 * Production API entry point: DATABASE_URL, TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, PORT.
 * API_PROCESSES=N (default 1) runs N processes that share the port (node:cluster): the primary only
 * forks them, replaces one that dies, stops them all on SIGINT/SIGTERM, and answers their scrapes of
 * GET /metrics with every process's metrics (docs/operations.md, "Metrics and alerts").
 */
async function serve(): Promise<void> {
  const database = await resolveDatabase();
  const prisma = createPrisma(database.url);
  const temporal = await connectTemporalClient();
  const apiKeyEnds = await listenForApiKeyEndsAt(database.url, logger);
  const gatewayChanges = await hearGatewayChanges(database.url, logger);
  const server = await listen({ prisma, temporal: temporal.client, apiKeyEnds }, config.port);
  logger.info({ port: config.port, pid: process.pid }, 'api listening');
  onShutdown(async () => {
    // Requests in flight are answered (a pause waits on a worker: npm start stops the workers after the API).
    await closeGracefully(server);
    // The audit entries of the last writes, held for their window, are written before the pool closes.
    await flushAuditEntries();
    await apiKeyEnds.close();
    await gatewayChanges.close();
    await prisma.$disconnect();
    await temporal.connection.close();
    await database.stop();
  });
}

async function primary(processes: number): Promise<void> {
  // The processes share one database: the primary starts (or finds) the embedded one once.
  const database = await resolveDatabase();
  const env = { DATABASE_URL: database.url };
  let stopping = false;
  const fork = () => cluster.fork(env);
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) return;
    logger.error({ pid: worker.process.pid, code, signal }, 'api process died; starting another');
    fork();
  });
  serveClusterMetrics();
  for (let i = 0; i < processes; i += 1) fork();
  logger.info({ port: config.port, processes }, 'api cluster started');
  onShutdown(async () => {
    stopping = true;
    const workers = Object.values(cluster.workers ?? {}).filter((worker) => worker !== undefined);
    await Promise.all(
      workers.map(
        (worker) =>
          new Promise<void>((resolve) => {
            if (worker.isDead()) return resolve();
            worker.once('exit', () => resolve());
            worker.process.kill('SIGTERM');
          }),
      ),
    );
    await database.stop();
  });
}

refuseUnsafeProductionStart('api');
const processes = config.apiProcesses;
const run = cluster.isPrimary && processes > 1 ? primary(processes) : serve();
run.catch((error) => {
  logger.fatal({ err: error }, 'api failed to start');
  process.exit(1);
});
