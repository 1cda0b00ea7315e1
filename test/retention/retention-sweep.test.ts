import crypto from 'node:crypto';
import { apiClient, createTestAccount, expectStatus, startWorkerApp, type WorkerApp } from '../support/harness';
import { DAY_MS, insertAgedDeliveries } from '../support/retention';
import { sweepRetentionBatch } from '../../src/retention/retention.service';
import { ensureRetentionSchedule } from '../../src/temporal/retention-schedule';
import type { RetentionSweepResult } from '../../workflows/retention-sweep';

/**
 * The retention sweep (docs/decisions.md §24) on the suite's database and dev server: rows past their
 * period go, rows inside it or still needed stay, the lists' itemsTotal stays exact (the §23 counters follow
 * the deletes), a sweep stopped after a batch resumes from its cursor, and the schedule is made once. The
 * periods are the defaults (30 days, 24 hours): rows are aged with SQL, so the sweep touches no other test's.
 */
let world: WorkerApp;
let taskQueue: string;

beforeAll(async () => {
  world = await startWorkerApp('retention');
  taskQueue = world.worker.worker.options.taskQueue;
}, 60_000);
afterAll(() => world?.close());

async function sweep(): Promise<RetentionSweepResult> {
  return world.app.temporal.workflow.execute('retentionSweep', {
    taskQueue,
    workflowId: `retention-sweep-test-${crypto.randomUUID()}`,
    args: [{}],
  });
}

async function newAccountWithDestination(name: string) {
  const account = await createTestAccount(world.app.prisma, { name });
  const destinationId = `we_${crypto.randomUUID().replaceAll('-', '')}`;
  await world.app.prisma.webhookDestination.create({
    data: { id: destinationId, accountId: account.accountId, url: 'http://127.0.0.1:9/hook' },
  });
  return { ...account, destinationId, api: apiClient(world.app.baseUrl, account.apiKey) };
}

const exists = async (table: 'events' | 'webhook_deliveries', ids: string[]) =>
  (
    await world.app.prisma.$queryRawUnsafe<{ id: string }[]>(`SELECT id FROM ${table} WHERE id = ANY($1::text[])`, ids)
  ).map((row) => row.id);

const deliveryIds = (eventIds: string[]) => eventIds.map((id) => id.replace(/^evt_/, 'wd_'));

it('deletes finished deliveries and then their events past 30 days; keeps what is younger or still needed; counts stay exact', async () => {
  const a = await newAccountWithDestination('Retention');
  const p = crypto.randomUUID().slice(0, 8);
  const base = { accountId: a.accountId, destinationId: a.destinationId };
  const gone = [
    ...(await insertAgedDeliveries(world.app.prisma, {
      ...base,
      prefix: `${p}s`,
      count: 3,
      ageMs: 40 * DAY_MS,
      status: 'success',
      completedAgeMs: 35 * DAY_MS,
    })),
    ...(await insertAgedDeliveries(world.app.prisma, {
      ...base,
      prefix: `${p}f`,
      count: 2,
      ageMs: 40 * DAY_MS,
      status: 'failure',
      completedAgeMs: 31 * DAY_MS,
    })),
  ];
  const goneWithoutDelivery = await insertAgedDeliveries(world.app.prisma, {
    ...base,
    prefix: `${p}n`,
    count: 2,
    ageMs: 40 * DAY_MS,
    status: null,
  });
  // Still needed: a delivery finished 10 days ago names its old event; retrying and pending ones keep theirs;
  // an event the relay has not dispatched; and everything younger than 30 days.
  const lateDelivery = await insertAgedDeliveries(world.app.prisma, {
    ...base,
    prefix: `${p}l`,
    count: 1,
    ageMs: 40 * DAY_MS,
    status: 'success',
    completedAgeMs: 10 * DAY_MS,
  });
  const retrying = await insertAgedDeliveries(world.app.prisma, {
    ...base,
    prefix: `${p}r`,
    count: 1,
    ageMs: 60 * DAY_MS,
    status: 'retry',
  });
  const pending = await insertAgedDeliveries(world.app.prisma, {
    ...base,
    prefix: `${p}p`,
    count: 1,
    ageMs: 60 * DAY_MS,
    status: 'pending',
  });
  const undispatched = await insertAgedDeliveries(world.app.prisma, {
    ...base,
    prefix: `${p}u`,
    count: 1,
    ageMs: 60 * DAY_MS,
    status: null,
    dispatched: false,
  });
  const young = await insertAgedDeliveries(world.app.prisma, {
    ...base,
    prefix: `${p}y`,
    count: 2,
    ageMs: 29 * DAY_MS,
    status: 'success',
  });

  const before = expectStatus(await a.api.get('/webhook/logs?take=100'), 200);
  expect(before.meta.itemsTotal).toBe(10);
  expect(expectStatus(await a.api.get('/webhook/logs?status=success'), 200).meta.itemsTotal).toBe(6);

  const result = await sweep();
  expect(result.webhook_deliveries_success).toBeGreaterThanOrEqual(3);
  expect(result.webhook_deliveries_failure).toBeGreaterThanOrEqual(2);
  expect(result.events).toBeGreaterThanOrEqual(7);

  expect(await exists('webhook_deliveries', deliveryIds(gone))).toEqual([]);
  expect(await exists('events', [...gone, ...goneWithoutDelivery])).toEqual([]);
  const kept = [...lateDelivery, ...retrying, ...pending, ...young];
  expect((await exists('webhook_deliveries', deliveryIds(kept))).sort()).toEqual(deliveryIds(kept).sort());
  expect((await exists('events', [...kept, ...undispatched])).sort()).toEqual([...kept, ...undispatched].sort());
  // The outbox's lag is read across accounts (GET /metrics): left undispatched, this aged event would read as
  // a 60-day lag to the other test files sharing the database.
  await world.app.prisma.event.updateMany({ where: { id: { in: undispatched } }, data: { dispatchedAt: new Date() } });
  // The attempts went with their deliveries (the foreign key's cascade, in the same statement).
  const attempts = await world.app.prisma.webhookAttempt.count({ where: { deliveryId: { in: deliveryIds(gone) } } });
  expect(attempts).toBe(0);

  const after = expectStatus(await a.api.get('/webhook/logs?take=100'), 200);
  expect(after.meta.itemsTotal).toBe(5);
  expect(after.data).toHaveLength(5);
  expect(expectStatus(await a.api.get('/webhook/logs?status=success'), 200).meta.itemsTotal).toBe(3);
  expect(expectStatus(await a.api.get('/webhook/logs?status=failure'), 200).meta.itemsTotal).toBe(0);
  expect(expectStatus(await a.api.get('/events?take=100'), 200).meta.itemsTotal).toBe(
    kept.length + undispatched.length,
  );
}, 60_000);

it('deletes idempotency keys past 24 hours unless a request holds them, and emails (sent or failed, and caught ones) past 30 days', async () => {
  const a = await newAccountWithDestination('Retention keys');
  const at = (ms: number) => new Date(Date.now() - ms);
  const key = (name: string, createdAgo: number, lockedAgo: number, state = 'completed') => ({
    accountId: a.accountId,
    key: name,
    method: 'POST',
    path: '/customers',
    requestHash: 'x',
    state,
    responseStatus: state === 'completed' ? 201 : null,
    createdAt: at(createdAgo),
    lockedAt: at(lockedAgo),
  });
  await world.app.prisma.idempotencyKey.createMany({
    data: [
      key('old', 25 * 3_600_000, 25 * 3_600_000),
      key('old-held', 25 * 3_600_000, 1_000, 'in_progress'),
      key('fresh', 3_600_000, 3_600_000),
    ],
  });
  const email = (id: string, status: string, ageMs: number) => ({
    id,
    accountId: a.accountId,
    kind: 'receipt',
    eventId: `evt_${id}`,
    toAddress: 'ada@example.com',
    subject: 'Receipt',
    status,
    messageId: `<${id}@example.com>`,
    createdAt: at(ageMs),
  });
  const p = crypto.randomUUID().slice(0, 8);
  await world.app.prisma.email.createMany({
    data: [
      email(`eml_${p}old`, 'sent', 31 * DAY_MS),
      email(`eml_${p}oldfailed`, 'failed', 31 * DAY_MS),
      email(`eml_${p}queued`, 'queued', 31 * DAY_MS),
      email(`eml_${p}young`, 'sent', 29 * DAY_MS),
    ],
  });
  const caught = (subject: string, ageMs: number) => ({
    messageId: `<${p}${subject}@x>`,
    subject,
    receivedAt: at(ageMs),
  });
  await world.app.prisma.caughtEmail.createMany({
    data: [caught('old', 31 * DAY_MS), caught('young', DAY_MS)],
  });

  await sweep();

  const keys = await world.app.prisma.idempotencyKey.findMany({ where: { accountId: a.accountId } });
  expect(keys.map((row) => row.key).sort()).toEqual(['fresh', 'old-held']);
  const emails = await world.app.prisma.email.findMany({ where: { accountId: a.accountId } });
  expect(emails.map((row) => row.id).sort()).toEqual([`eml_${p}queued`, `eml_${p}young`].sort());
  const caughtLeft = await world.app.prisma.caughtEmail.findMany({ where: { messageId: { startsWith: `<${p}` } } });
  expect(caughtLeft.map((row) => row.subject)).toEqual(['young']);
}, 60_000);

it('a sweep stopped after a batch resumes from its cursor: every row past the period goes once, the counts exact at each step', async () => {
  const a = await newAccountWithDestination('Retention resume');
  const p = crypto.randomUUID().slice(0, 8);
  await insertAgedDeliveries(world.app.prisma, {
    accountId: a.accountId,
    destinationId: a.destinationId,
    prefix: p,
    count: 2_500,
    ageMs: 45 * DAY_MS,
    status: 'success',
    completedAgeMs: 44 * DAY_MS,
  });
  const total = async () => expectStatus(await a.api.get('/webhook/logs?take=1'), 200).meta.itemsTotal as number;
  const counted = () => world.app.prisma.webhookDelivery.count({ where: { accountId: a.accountId } });
  expect(await total()).toBe(2_500);

  // The workflow's first batch, then its worker "dies": 1,000 rows are gone and the counter says so.
  const first = await sweepRetentionBatch(world.app.prisma, { target: 'webhook_deliveries_success', after: null });
  expect(first).toMatchObject({ deleted: 1_000, done: false });
  expect(first.after).not.toBeNull();
  expect(await total()).toBe(1_500);
  expect(await counted()).toBe(1_500);

  // Resumed where the history says it was (the target and the cursor): the rest, deliveries then events.
  const resumed: RetentionSweepResult = await world.app.temporal.workflow.execute('retentionSweep', {
    taskQueue,
    workflowId: `retention-sweep-resume-${p}`,
    args: [{ target: 0, after: first.after }],
  });
  expect(resumed.webhook_deliveries_success).toBeGreaterThanOrEqual(1_500);
  expect(resumed.events).toBeGreaterThanOrEqual(2_500);
  expect(await total()).toBe(0);
  expect(await counted()).toBe(0);
  expect(await world.app.prisma.event.count({ where: { accountId: a.accountId } })).toBe(0);
  // Run again: nothing of it is left to delete.
  const again = await sweepRetentionBatch(world.app.prisma, { target: 'webhook_deliveries_success', after: null });
  expect(again.done).toBe(true);
}, 120_000);

it('the schedule is created once, found and updated by a second start, and its sweep runs on the worker', async () => {
  const scheduleId = `retention-sweep-test-${crypto.randomUUID()}`;
  const client = world.app.temporal;
  try {
    expect(await ensureRetentionSchedule(client, { scheduleId, taskQueue, everyMs: 3_600_000 })).toBe('created');
    expect(await ensureRetentionSchedule(client, { scheduleId, taskQueue, everyMs: 2 * 3_600_000 })).toBe('updated');
    const handle = client.schedule.getHandle(scheduleId);
    const described = await handle.describe();
    expect(described.spec.intervals).toEqual([expect.objectContaining({ every: 2 * 3_600_000 })]);
    expect(described.action).toMatchObject({ workflowType: 'retentionSweep', taskQueue });

    const a = await newAccountWithDestination('Retention schedule');
    const [old] = await insertAgedDeliveries(world.app.prisma, {
      accountId: a.accountId,
      destinationId: a.destinationId,
      prefix: crypto.randomUUID().slice(0, 8),
      count: 1,
      ageMs: 31 * DAY_MS,
      status: null,
    });
    await handle.trigger();
    const deadline = Date.now() + 30_000;
    while ((await exists('events', [old!])).length > 0) {
      if (Date.now() > deadline) throw new Error('the scheduled sweep did not delete the old event within 30 s');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect((await handle.describe()).info.recentActions.length).toBeGreaterThanOrEqual(1);
  } finally {
    await client.schedule
      .getHandle(scheduleId)
      .delete()
      .catch(() => undefined);
  }
}, 60_000);
