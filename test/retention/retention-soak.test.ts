import crypto from 'node:crypto';
import { paths } from '../../src/config';
import { createPrisma, type Db } from '../../src/db/prisma';
import { migrate } from '../../src/db/migrator';
import { freshDatabase } from '../support/fresh-database';
import { quietRuntime, startTestWorker } from '../support/harness';
import { insertAgedDeliveries } from '../support/retention';
import { countDeliveries } from '../../src/webhooks/delivery-log.records';
import { Connection } from '@temporalio/client';
import { temporalClient } from '../../src/temporal/client';

/**
 * A soak of the retention sweep (docs/decisions.md §24): writes go on round after round (events, their
 * finished deliveries and attempts, idempotency keys) while sweeps run, with periods of 2 seconds
 * (RETENTION_*), on a database of its own so the short periods touch no other test's rows. The tables stay
 * bounded by what the period holds, however much was written, and the counters stay exact.
 */
const ROUNDS = 12;
const PER_ROUND = 400;
const PERIOD = '2s';
let prisma: Db;
let worker: Awaited<ReturnType<typeof startTestWorker>>;
let connection: Connection;
const saved = { ...process.env };

beforeAll(async () => {
  quietRuntime();
  for (const name of [
    'RETENTION_EVENTS',
    'RETENTION_WEBHOOK_DELIVERIES',
    'RETENTION_IDEMPOTENCY_KEYS',
    'RETENTION_EMAILS',
  ])
    process.env[name] = PERIOD;
  const url = await freshDatabase('retention_soak');
  await migrate(url, paths.migrations);
  prisma = createPrisma(url, 5);
  worker = await startTestWorker(prisma, `retention-soak-${crypto.randomUUID()}`);
  connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
}, 120_000);
afterAll(async () => {
  process.env = saved;
  await worker?.stop();
  await connection?.close();
  await prisma?.$disconnect();
});

it('tables stay bounded while writes continue, and the counters stay exact', async () => {
  const accountId = 'acct_retentionSoak';
  await prisma.account.create({ data: { id: accountId, name: 'Soak' } });
  const destinationId = 'we_retentionSoak';
  await prisma.webhookDestination.create({ data: { id: destinationId, accountId, url: 'http://127.0.0.1:9/hook' } });
  const client = temporalClient(connection, 'default');
  const sizes: { events: number; deliveries: number; attempts: number; keys: number }[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    await insertAgedDeliveries(prisma, {
      accountId,
      destinationId,
      prefix: `r${round}`,
      count: PER_ROUND,
      ageMs: 0,
      status: 'success',
    });
    await prisma.idempotencyKey.createMany({
      data: Array.from({ length: PER_ROUND }, (_, i) => ({
        accountId,
        key: `r${round}-${i}`,
        method: 'POST',
        path: '/customers',
        requestHash: 'x',
        state: 'completed',
      })),
    });
    await client.workflow.execute('retentionSweep', {
      taskQueue: worker.worker.options.taskQueue,
      workflowId: `retention-soak-${round}-${crypto.randomUUID()}`,
      args: [{}],
    });
    sizes.push({
      events: await prisma.event.count(),
      deliveries: await prisma.webhookDelivery.count(),
      attempts: await prisma.webhookAttempt.count(),
      keys: await prisma.idempotencyKey.count(),
    });
    expect(await countDeliveries(prisma, accountId, {})).toBe(sizes.at(-1)!.deliveries);
    await new Promise((resolve) => setTimeout(resolve, 700));
  }
  // Written: ROUNDS x PER_ROUND of each. Kept: at most what the last 2 s wrote (a few rounds), however many ran.
  const bound = 4 * PER_ROUND;
  for (const size of sizes) {
    expect(size.events).toBeLessThanOrEqual(bound);
    expect(size.deliveries).toBeLessThanOrEqual(bound);
    expect(size.attempts).toBeLessThanOrEqual(bound);
    expect(size.keys).toBeLessThanOrEqual(bound);
  }
  expect(ROUNDS * PER_ROUND).toBeGreaterThanOrEqual(3 * bound);
  // Once the period has passed with no more writes, everything goes.
  await new Promise((resolve) => setTimeout(resolve, 2_200));
  await client.workflow.execute('retentionSweep', {
    taskQueue: worker.worker.options.taskQueue,
    workflowId: `retention-soak-last-${crypto.randomUUID()}`,
    args: [{}],
  });
  expect(await prisma.event.count()).toBe(0);
  expect(await prisma.webhookDelivery.count()).toBe(0);
  expect(await prisma.idempotencyKey.count()).toBe(0);
  expect(await countDeliveries(prisma, accountId, {})).toBe(0);
}, 180_000);
