// First: a stop asked while this process starts is noted, not fatal (see there).
import { stopRequestedDuringStart } from './stop-during-start';
import { NativeConnection } from '@temporalio/worker';
import { config } from '../config';
import { resolveDatabase } from '../db/local-database';
import { hearGatewayChanges } from '../use-cases';
import { createPrisma } from '../db/prisma';
import { logger } from '../http/logger';
import { createWorker, workerPoolSize } from '../temporal';
import { temporalClient } from '../temporal';
import { installWorkerRuntime } from '../temporal';
import { startRelay } from '../webhooks';
import { emailConsumer } from '../emails';
import { createMailer } from '../emails';
import { startWorkflowStartSweeper } from '../temporal';
import { startCounterFolding } from '../db/counter-folding';
import { ensureRetentionSchedule, RETENTION_SCHEDULE_ID } from '../temporal';
import { ensureReconciliationSchedule, RECONCILIATION_SCHEDULE_ID } from '../temporal';
import { encryptStoredSecrets } from '../webhooks';
import { refuseUnsafeProductionStart } from '../lib/secrets';
import { sealStoredAnswers } from '../http/idempotency';
import { freeLoopbackPort, serveWorkerMetrics, type WorkerMetricsServer } from '../temporal';
import { registeredGateways } from '../gateway-registrations';

/**
 * Production worker entry point (task queue `billing`). Temporal's worker handles SIGINT/SIGTERM itself.
 * WORKFLOW_BUNDLE: a bundle built by `npm run build:workflows` (the Docker image has one); WORKER_ACTIVITY_SLOTS.
 * The webhook outbox relay, the sweep of workflow_starts and the folding of the list counters run beside it
 * and stop when the worker has stopped; at start it creates (or updates) the retention sweep's Temporal
 * schedule (docs/decisions.md §24).
 * WORKER_METRICS_PORT: GET /metrics of this process, the SDK's metrics and the service's (docs/operations.md,
 * "Metrics and alerts"); a port that cannot be bound is logged, and the worker runs without it.
 */
async function main(): Promise<void> {
  const metricsPort = config.workerMetricsPort;
  const sdkMetricsPort = metricsPort ? await freeLoopbackPort() : undefined;
  const runtime = installWorkerRuntime({
    logger,
    sdkLogLevel: config.temporalLogLevel,
    metricsPort: sdkMetricsPort,
    metricsHost: '127.0.0.1',
  });
  let metrics: WorkerMetricsServer | undefined;
  if (metricsPort) {
    metrics = await serveWorkerMetrics({
      port: metricsPort,
      sdkMetricsUrl: `http://127.0.0.1:${sdkMetricsPort}/metrics`,
    }).catch((error: unknown) => {
      logger.error({ err: error, port: metricsPort }, 'worker metrics not served: the port could not be bound');
      return undefined;
    });
  }
  const database = await resolveDatabase();
  const prisma = createPrisma(database.url, workerPoolSize());
  // Charges go through the processor an account connected last, also when another process connected it.
  const gatewayChanges = await hearGatewayChanges(database.url, logger);
  const encrypted = await encryptStoredSecrets(prisma);
  if (encrypted > 0)
    logger.info({ destinations: encrypted }, 'webhook secrets encrypted under the current SECRETS_ENCRYPTION_KEY');
  const sealed = await sealStoredAnswers(prisma);
  if (sealed > 0)
    logger.info({ records: sealed }, 'idempotency answers stored in clear text encrypted under SECRETS_ENCRYPTION_KEY');
  const connection = await NativeConnection.connect({ address: config.temporalAddress });
  const bundle = config.workflowBundle;
  // Customers' emails go to SMTP_URL (npm start: its local catcher). Unset, none is started (docs/configuration.md):
  // a workflow per paid invoice retrying for hours against no server would only load the worker.
  const mailer = createMailer(config.smtpUrl);
  if (!config.smtpUrl) logger.warn('SMTP_URL is not set: no email is sent to customers (and no invoice.sent written)');
  const worker = await createWorker({
    prisma,
    gateways: registeredGateways(prisma),
    connection,
    mailer,
    ...(bundle ? { workflowBundle: { codePath: bundle } } : {}),
  });
  // The relay's client shares the worker's connection, so the sweep's workflow starts can be eager.
  const temporal = temporalClient(connection);
  // The relay makes each delivery's attempt 1 (counted on the worker's metrics as the activity counts the
  // rest) and starts its workflow without asking for an eager start: a start then returns once it is
  // durable, not after the first task was handed over, and the relay's batch goes on (docs/performance.md, Sixth round).
  const relay = startRelay({
    prisma,
    databaseUrl: database.url,
    temporal,
    taskQueue: config.taskQueue,
    eagerStart: false,
    metricMeter: runtime.metricMeter,
    // The emails events call for start from the same outbox pass (docs/decisions.md §30).
    consumers: config.smtpUrl ? [emailConsumer(temporal, config.taskQueue)] : [],
  });
  // The retention sweep's schedule (docs/decisions.md §24): created by the first worker to start, brought up to
  // date by the others. Not fatal: a worker that cannot reach the schedule API still runs billing.
  await ensureRetentionSchedule(temporal, { taskQueue: config.taskQueue })
    .then((how) => logger.info({ schedule: RETENTION_SCHEDULE_ID, how }, 'retention sweep schedule ready'))
    .catch((error: unknown) =>
      logger.error({ err: error, schedule: RETENTION_SCHEDULE_ID }, 'retention sweep schedule not created'),
    );
  // The payment reconciliation (docs/decisions.md §40): processors asked about payments in flight every minute.
  await ensureReconciliationSchedule(temporal, { taskQueue: config.taskQueue })
    .then((how) => logger.info({ schedule: RECONCILIATION_SCHEDULE_ID, how }, 'payment reconciliation schedule ready'))
    .catch((error: unknown) =>
      logger.error({ err: error, schedule: RECONCILIATION_SCHEDULE_ID }, 'payment reconciliation schedule not created'),
    );
  // Workflows the API recorded and could not start (it died, Temporal was down): started a few seconds late.
  const starts = startWorkflowStartSweeper({ prisma, temporal, taskQueue: config.taskQueue, eagerStart: true });
  const folding = startCounterFolding({ prisma });
  logger.info(
    { taskQueue: config.taskQueue, namespace: config.temporalNamespace, metricsPort: metrics?.port ?? null },
    'worker running',
  );
  const running = worker.run();
  // Stopped while starting: shut down at once (the worker's own way, so its connection is released).
  if (stopRequestedDuringStart()) {
    logger.info('stopped while starting: the worker shuts down at once');
    worker.shutdown();
  }
  await running;
  await relay.stop();
  await starts.stop();
  await folding.stop();
  await gatewayChanges.close();
  mailer.close();
  await metrics?.close();
  await connection.close();
  await prisma.$disconnect();
  await database.stop();
  logger.info('worker stopped');
}

refuseUnsafeProductionStart('worker');
main().catch((error) => {
  logger.fatal({ err: error }, 'worker failed');
  process.exit(1);
});
