import { spawn } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import { createActivities } from '../../activities';
import { registeredGateways } from '../../src/gateway-registrations';
import { createWebhookActivities } from '../../activities/webhooks';
import { TSX_NODE_ARGS } from '../../src/runtime/processes';
import { newId } from '../../src/lib/ids';
import { sendWindowMs } from '../../src/webhooks/delivery-attempt.service';
import { webhookWorkflowId } from '../../src/webhooks/workflow-id';
import { sendClaimsTogether } from '../../src/webhooks/send-claims';
import { createPrisma, type Db } from '../../src/db/prisma';
import { setDestinationActive, deleteDestination, createDestination } from '../../src/webhooks/destination.service';
import { verifySignature } from '../../src/webhooks/signing';
import type { Relay } from '../../src/webhooks/relay';
import { WEBHOOK_MAX_ATTEMPTS, WEBHOOK_RETRY_DELAYS_MS, webhookStateQuery } from '../../workflows/webhook-delivery';
import { createEnvWorker, createTimeSkippingEnv } from '../support/temporal';
import { historyView } from '../support/history';
import { recordWorkflowHistories } from '../support/subscriptions';
import { startWebhookReceiver, type Responder, type WebhookReceiver } from '../support/webhook-receiver';
import {
  accountWithDestination,
  allowPrivateWebhookTargets,
  deliveryHandle,
  manualRelay,
  waitUntil,
  writeEvent,
} from '../support/webhooks';
import { freePort } from '../support/ports';

// The delivery workflow on the time-skipping test server: retries that take minutes pass in moments.
const TASK_QUEUE = 'webhook-delivery-test';

let prisma: Db;
let env: TestWorkflowEnvironment;
let worker: Worker;
let workerRunning: Promise<void>;
let relay: Relay;
const accounts: string[] = [];
const receivers: WebhookReceiver[] = [];

beforeAll(async () => {
  allowPrivateWebhookTargets();
  prisma = createPrisma(process.env.DATABASE_URL!, 5);
  env = await createTimeSkippingEnv();
  worker = await createEnvWorker(env, prisma, TASK_QUEUE);
  workerRunning = worker.run();
  // Attempt 1, which the relay makes, is scheduled on the test server's clock, as the workflow's are.
  relay = manualRelay(prisma, env.client, TASK_QUEUE, () => accounts, { temporalNow: () => env.currentTimeMs() });
});

afterAll(async () => {
  await relay.stop();
  worker.shutdown();
  await workerRunning;
  await env.teardown();
  await Promise.all(receivers.map((receiver) => receiver.close()));
  await prisma.$disconnect();
});

async function receiver(reply?: Responder) {
  const started = await startWebhookReceiver({ reply });
  receivers.push(started);
  return started;
}

/** An account whose one destination points at `url`, and one event of it dispatched by the relay. */
async function dispatchedEvent(url: string) {
  const account = await accountWithDestination(prisma, url);
  accounts.push(account.accountId);
  const event = await writeEvent(prisma, account.accountId);
  expect(await relay.runOnce()).toBe(1);
  const handle = deliveryHandle(env.client, event.id, account.destination.id);
  const delivery = () =>
    prisma.webhookDelivery.findUniqueOrThrow({
      where: { eventId_destinationId_resend: { eventId: event.id, destinationId: account.destination.id, resend: 0 } },
    });
  const attempts = async () =>
    prisma.webhookAttempt.findMany({ where: { deliveryId: (await delivery()).id }, orderBy: { attemptNumber: 'asc' } });
  return { ...account, event, handle, delivery, attempts };
}

describe('retry schedule (time skipping)', () => {
  it('runs the whole schedule: 6 attempts, each delay within +-20% of 15 s, 45 s, 2 min, 10 min, 30 min, then failure', async () => {
    const target = await receiver(503);
    const { handle, delivery, attempts, event } = await dispatchedEvent(target.url);
    const state = await handle.result();

    expect(state.status).toBe('failure');
    expect(target.received).toHaveLength(WEBHOOK_MAX_ATTEMPTS);
    expect(target.received.every((request) => request.json.id === event.id)).toBe(true);
    const rows = await attempts();
    expect(rows.map((row) => row.attemptNumber)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(rows.every((row) => row.statusCode === 503 && row.outcome === 'retryable')).toBe(true);

    WEBHOOK_RETRY_DELAYS_MS.forEach((base, index) => {
      const gap = rows[index + 1]!.scheduledAt.getTime() - rows[index]!.scheduledAt.getTime();
      const drawn = state.retryDelaysMs[index]!;
      // The drawn delay is in its band, and the logged gap is that delay plus the real time of the attempt and of
      // a workflow task (milliseconds on a quiet machine, seconds on a busy one): well under the shortest delay.
      expect(drawn).toBeGreaterThanOrEqual(base * 0.8);
      expect(drawn).toBeLessThanOrEqual(base * 1.2);
      expect(gap).toBeGreaterThanOrEqual(drawn);
      expect(gap - drawn).toBeLessThan(5_000);
      expect(gap).toBeGreaterThanOrEqual(base * 0.8);
    });
    const totalMinutes = (rows[5]!.scheduledAt.getTime() - rows[0]!.scheduledAt.getTime()) / 60_000;
    expect(totalMinutes).toBeGreaterThan(34);
    expect(totalMinutes).toBeLessThan(52);

    expect(await delivery()).toMatchObject({
      status: 'failure',
      attemptCount: 6,
      lastStatusCode: 503,
      nextAttemptAt: null,
    });
    expect((await delivery()).completedAt).not.toBeNull();
  });

  it('draws different delays for different deliveries (the jitter is real)', async () => {
    const target = await receiver(200);
    const first = await dispatchedEvent(target.url);
    const second = await dispatchedEvent(target.url);
    const [a, b] = [await first.handle.result(), await second.handle.result()];
    expect(a.retryDelaysMs).not.toEqual(b.retryDelaysMs);
    // The query is the state and its times in ISO-8601 (for the Web UI).
    const { times, ...queried } = await first.handle.query(webhookStateQuery);
    expect(queried).toEqual(a);
    expect(times).toEqual(
      Object.fromEntries(
        queried.attempts.map((attempt, index) => [
          `attempts.${index}.scheduledAt`,
          new Date(attempt.scheduledAt).toISOString(),
        ]),
      ),
    );
  });

  it('500 then 200: the delivery goes pending -> retry -> success', async () => {
    const target = await receiver((_request, index) => (index === 0 ? 500 : 200));
    const { handle, delivery, attempts } = await dispatchedEvent(target.url);
    await waitUntil(async () => (await delivery()).status === 'retry');
    const waiting = await handle.query(webhookStateQuery);
    expect(waiting).toMatchObject({
      status: 'retry',
      attempts: [expect.objectContaining({ attempt: 1, statusCode: 500, outcome: 'retryable' })],
    });
    expect(waiting.nextAttemptAt).not.toBeNull();
    expect((await delivery()).nextAttemptAt).not.toBeNull();

    const state = await handle.result();
    expect(state.status).toBe('success');
    expect((await attempts()).map((row) => [row.attemptNumber, row.statusCode, row.outcome])).toEqual([
      [1, 500, 'retryable'],
      [2, 200, 'success'],
    ]);
    expect(await delivery()).toMatchObject({
      status: 'success',
      attemptCount: 2,
      lastStatusCode: 200,
      lastError: null,
      nextAttemptAt: null,
    });
    await recordWorkflowHistories(env.client, handle.workflowId, 'webhook-relay-retry-from-attempt-end');
  });

  it.each([408, 429, 502])('retries a %i', async (status) => {
    const target = await receiver((_request, index) => (index === 0 ? status : 204));
    const { handle, attempts } = await dispatchedEvent(target.url);
    expect((await handle.result()).status).toBe('success');
    expect((await attempts()).map((row) => row.statusCode)).toEqual([status, 204]);
  });

  it('a receiver that never answers times out after 10 s and is retried', async () => {
    const target = await receiver((_request, index) => (index === 0 ? 'hang' : 200));
    const { handle, attempts } = await dispatchedEvent(target.url);
    // The relay did not wait for this attempt 1 (2 s): the workflow makes it after the HTTP timeout. The
    // test server skips that wait as soon as a result is awaited, so the relay's real 10 s pass first.
    await waitUntil(async () => (await attempts()).length > 0, 20_000);
    const state = await handle.result();
    expect(state.status).toBe('success');
    const rows = await attempts();
    expect(rows[0]).toMatchObject({
      outcome: 'retryable',
      statusCode: null,
      error: 'timeout: no response within 10000 ms',
    });
    expect(rows[0]!.durationMs).toBeGreaterThanOrEqual(10_000);
    expect(rows[0]!.durationMs).toBeLessThan(12_000);
    expect(rows[1]).toMatchObject({ outcome: 'success', statusCode: 200 });
    expect(target.received).toHaveLength(2);
    // The retry comes its drawn delay (15 s +-20%) after the attempt failed, at its timeout: not after the
    // workflow's wait for the relay's attempt (docs/api.md, Delivery).
    const timedOutAt = rows[0]!.scheduledAt.getTime() + rows[0]!.durationMs;
    const retryAfter = rows[1]!.scheduledAt.getTime() - timedOutAt;
    expect(retryAfter).toBeGreaterThanOrEqual(state.retryDelaysMs[0]!);
    expect(retryAfter - state.retryDelaysMs[0]!).toBeLessThan(1_000);
    expect(retryAfter).toBeGreaterThanOrEqual(12_000);
    expect(retryAfter).toBeLessThanOrEqual(18_000 + 1_000);
  }, 60_000);

  it('connection refused is retried; the next attempt reaches the receiver once it listens', async () => {
    const port = await freePort();
    const { handle, delivery, attempts } = await dispatchedEvent(`http://127.0.0.1:${port}/hooks`);
    await waitUntil(async () => (await delivery()).status === 'retry');
    expect((await attempts())[0]).toMatchObject({
      outcome: 'retryable',
      statusCode: null,
      error: 'connection refused',
    });
    const target = await startWebhookReceiver({ port });
    receivers.push(target);
    expect((await handle.result()).status).toBe('success');
    expect(target.received).toHaveLength(1);
    expect((await delivery()).attemptCount).toBe(2);
  });

  it('a DNS failure is retried; disabling the destination then ends the delivery without another request', async () => {
    const { handle, delivery, attempts, accountId, destination } = await dispatchedEvent(
      'http://no-such-host.invalid/hooks',
    );
    await waitUntil(async () => (await delivery()).status === 'retry');
    expect((await attempts())[0]).toMatchObject({ outcome: 'retryable', error: expect.stringMatching(/^dns failure/) });
    await setDestinationActive(prisma, accountId, destination.id, false);
    const state = await handle.result();
    expect(state.status).toBe('failure');
    expect(state.attempts.at(-1)).toMatchObject({ attempt: 2, outcome: 'skipped', error: 'destination disabled' });
    expect(await attempts()).toHaveLength(1);
    expect(await delivery()).toMatchObject({ status: 'failure', attemptCount: 1, lastError: 'destination disabled' });
  });

  it('a destination deleted during a retry wait gets nothing more: the delivery ends failure "destination deleted"', async () => {
    const target = await receiver(500);
    const { handle, delivery, accountId, destination } = await dispatchedEvent(target.url);
    await waitUntil(async () => (await delivery()).status === 'retry');
    await deleteDestination(prisma, accountId, destination.id);
    expect((await handle.result()).status).toBe('failure');
    expect(target.received).toHaveLength(1);
    expect(await delivery()).toMatchObject({
      status: 'failure',
      attemptCount: 1,
      lastStatusCode: 500,
      lastError: 'destination deleted',
    });
  });

  it('a URL changed during a retry wait takes effect on the next attempt', async () => {
    const old = await receiver(503);
    const replacement = await receiver(200);
    const { handle, delivery, accountId, destination, attempts } = await dispatchedEvent(old.url);
    await waitUntil(async () => (await delivery()).status === 'retry');
    await prisma.webhookDestination.update({
      where: { id: destination.id, accountId },
      data: { url: replacement.url },
    });
    expect((await handle.result()).status).toBe('success');
    expect([old.received.length, replacement.received.length]).toEqual([1, 1]);
    expect((await attempts()).map((row) => row.url)).toEqual([old.url, replacement.url]);
  });

  it.each([
    [301, { location: '/elsewhere' }],
    [302, { location: '/elsewhere' }],
    [400, {}],
    [401, {}],
    [404, {}],
    [410, {}],
  ])(
    '%i is a permanent failure at once: no second attempt, no redirect followed, code logged',
    async (status, headers) => {
      const target = await receiver({ status, headers });
      const { handle, delivery, attempts } = await dispatchedEvent(target.url);
      const state = await handle.result();
      expect(state.status).toBe('failure');
      expect(state.attempts).toHaveLength(1);
      expect(target.received.map((request) => request.path)).toEqual(['/hooks']);
      expect(await attempts()).toEqual([
        expect.objectContaining({ attemptNumber: 1, statusCode: status, outcome: 'permanent' }),
      ]);
      expect(await delivery()).toMatchObject({ status: 'failure', attemptCount: 1, lastStatusCode: status });
    },
  );
});

/** A delivery row made by hand (no relay), for the activity to be called directly, as a retry would. */
async function deliveryToAttempt(url: string) {
  const { accountId, destination } = await accountWithDestination(prisma, url);
  const event = await writeEvent(prisma, accountId);
  const delivery = await prisma.webhookDelivery.create({
    data: {
      id: newId('webhookDelivery'),
      accountId,
      eventId: event.id,
      eventType: event.event,
      destinationId: destination.id,
      payload: event as object,
    },
  });
  const input = { deliveryId: delivery.id, attempt: 1, scheduledAt: Date.now(), retryDelayMs: 15_000 };
  return { delivery, destination, event, input };
}

describe('the attempt activity', () => {
  it('is idempotent: run again for the same attempt it answers the recorded result and sends nothing', async () => {
    const target = await receiver(500);
    const { delivery, destination, input } = await deliveryToAttempt(target.url);
    const { attemptWebhookDelivery } = createActivities({ prisma, gateways: registeredGateways(prisma) });
    const first = await attemptWebhookDelivery(input);
    const again = await attemptWebhookDelivery(input);
    expect(first).toMatchObject({ status: 'retry', outcome: 'retryable', statusCode: 500 });
    // Answered from its record, with when it ended: the retry's delay has partly passed.
    expect(again).toEqual({ ...first, endedAt: input.scheduledAt + first.durationMs });
    expect(target.received).toHaveLength(1);
    expect(await prisma.webhookAttempt.count({ where: { deliveryId: delivery.id } })).toBe(1);
    expect(
      verifySignature(
        target.received[0]!.headers['cc-signature'] as string,
        destination.secret,
        target.received[0]!.body,
      ),
    ).toBe(true);

    const last = await attemptWebhookDelivery({ ...input, attempt: 2, retryDelayMs: null });
    expect(last).toMatchObject({ status: 'failure', outcome: 'retryable', statusCode: 500 });
    expect(await prisma.webhookDelivery.findUniqueOrThrow({ where: { id: delivery.id } })).toMatchObject({
      status: 'failure',
      attemptCount: 2,
      sendingAttempt: null,
      sendingSince: null,
    });
  });

  it('run again while its send may still be in flight, waits for that send to be recorded and answers it: one request', async () => {
    const target = await receiver('hang');
    const { delivery, input } = await deliveryToAttempt(target.url);
    const { attemptWebhookDelivery } = createWebhookActivities({ prisma, httpTimeoutMs: 1_500 });
    const first = attemptWebhookDelivery(input);
    await target.waitFor(1);
    // As an activity retried after a heartbeat timeout, or a workflow task run again elsewhere, while the first runs on.
    const again = await attemptWebhookDelivery(input);
    const timeout = {
      status: 'retry',
      outcome: 'retryable',
      statusCode: null,
      error: 'timeout: no response within 1500 ms',
    };
    expect(await first).toMatchObject(timeout);
    expect(again).toMatchObject(timeout);
    expect(again.sentAgain).toBeUndefined();
    expect(target.received).toHaveLength(1);
    expect(await prisma.webhookAttempt.count({ where: { deliveryId: delivery.id } })).toBe(1);
  });

  it('sent, then refused by the database when recording: its next execution records the result, nothing is sent again', async () => {
    const target = await receiver(503);
    const { delivery, input } = await deliveryToAttempt(target.url);
    const { attemptWebhookDelivery } = createWebhookActivities({ prisma, httpTimeoutMs: 1_500 });
    const constraint = `refuse_${delivery.id.toLowerCase()}`;
    await prisma.$executeRawUnsafe(
      `ALTER TABLE webhook_attempts ADD CONSTRAINT ${constraint} CHECK (delivery_id <> '${delivery.id}') NOT VALID`,
    );
    try {
      await expect(attemptWebhookDelivery(input)).rejects.toThrow(constraint);
    } finally {
      await prisma.$executeRawUnsafe(`ALTER TABLE webhook_attempts DROP CONSTRAINT ${constraint}`);
    }
    expect(target.received).toHaveLength(1);
    expect(await attemptWebhookDelivery(input)).toMatchObject({
      status: 'retry',
      outcome: 'retryable',
      statusCode: 503,
    });
    expect(target.received).toHaveLength(1);
    expect(await prisma.webhookAttempt.findMany({ where: { deliveryId: delivery.id } })).toEqual([
      expect.objectContaining({ attemptNumber: 1, statusCode: 503 }),
    ]);
    expect(await prisma.webhookDelivery.findUniqueOrThrow({ where: { id: delivery.id } })).toMatchObject({
      status: 'retry',
      attemptCount: 1,
      sendingAttempt: null,
    });
  });
});

/** A worker of the delivery workflow in a process of its own (test/support/crashing-worker.ts), to be killed. */
async function workerProcess(taskQueue: string, httpTimeoutMs: number) {
  const script = path.join(__dirname, '..', 'support', 'crashing-worker.ts');
  const child = spawn(
    process.execPath,
    [...TSX_NODE_ARGS, script, taskQueue, 'webhook-sending', String(httpTimeoutMs)],
    { env: { ...process.env, TEMPORAL_ADDRESS: env.address }, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  await new Promise<void>((resolve, reject) => {
    readline.createInterface({ input: child.stdout! }).on('line', (line) => line.trim() === 'polling' && resolve());
    child.once('exit', (code) => reject(new Error(`the webhook worker exited (${code}) before polling`)));
  });
  return {
    kill: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
  };
}

describe("the relay's claims asked together (src/webhooks/send-claims.ts)", () => {
  it('claims each delivery asked at once, each from when its statement ran; the same attempt asked twice is claimed once', async () => {
    const target = await receiver(200);
    const deliveries = [
      (await deliveryToAttempt(target.url)).delivery,
      (await deliveryToAttempt(target.url)).delivery,
      (await deliveryToAttempt(target.url)).delivery,
    ];
    const claim = sendClaimsTogether(prisma);
    const asked = Date.now();
    const claimed = await Promise.all([
      ...deliveries.map((delivery) => claim(delivery.id, 1)),
      claim(deliveries[0]!.id, 1),
    ]);
    expect(claimed.slice(0, 3).map((row) => row?.id)).toEqual(deliveries.map((delivery) => delivery.id));
    expect(claimed[0]).toMatchObject({ url: target.url, destinationId: deliveries[0]!.destinationId });
    // One send of attempt 1 of the first delivery, not two.
    expect(claimed[3]).toBeUndefined();
    const rows = await prisma.webhookDelivery.findMany({ where: { id: { in: deliveries.map((row) => row.id) } } });
    for (const row of rows) {
      expect(row.sendingAttempt).toBe(1);
      expect(row.sendingSince!.getTime()).toBeGreaterThanOrEqual(asked - 1_000);
    }
    // Claimed already: asked again, refused (as claimSend refuses a send in flight).
    expect(await claim(deliveries[2]!.id, 1)).toBeUndefined();
  });
});

describe('a worker killed while its attempt is at the receiver (between the send and its record)', () => {
  it('another worker sends it again once that send cannot be in flight any more, never before; recorded once', async () => {
    const taskQueue = 'webhook-killed-worker';
    // A send window (the HTTP timeout and its margin) longer than the workflow task's 10 s timeout, after
    // which the second worker runs the attempt again: it must wait for the rest of the window.
    const httpTimeoutMs = 8_000;
    const target = await receiver((_request, index) => (index === 0 ? 'hang' : 200));
    const { delivery, destination, event } = await deliveryToAttempt(target.url);
    const first = await workerProcess(taskQueue, httpTimeoutMs);
    const handle = await env.client.workflow.start('deliverWebhook', {
      taskQueue,
      workflowId: webhookWorkflowId(event.id, destination.id),
      args: [{ deliveryId: delivery.id, eventId: event.id, destinationId: destination.id, retryDelaysMs: [15_000] }],
    });
    const [sent] = await target.waitFor(1);
    // The send was claimed just before its request left (docs/decisions.md §10).
    const { sendingAttempt, sendingSince } = await prisma.webhookDelivery.findUniqueOrThrow({
      where: { id: delivery.id },
    });
    expect(sendingAttempt).toBe(1);
    await first.kill();
    const second = await createEnvWorker(env, prisma, taskQueue, createWebhookActivities({ prisma, httpTimeoutMs }));
    const state = await second.runUntil(async () => {
      const [, again] = await target.waitFor(2, { timeoutMs: 60_000 });
      // The same envelope (receivers deduplicate on its id), sent again only once the first could not still be sending.
      expect(again!.json.id).toBe(sent!.json.id);
      expect(again!.at - sendingSince!.getTime()).toBeGreaterThanOrEqual(sendWindowMs(httpTimeoutMs));
      expect(again!.at - sent!.at).toBeLessThan(sendWindowMs(httpTimeoutMs) + 10_000);
      return handle.result();
    });
    expect(state.status).toBe('success');
    expect(state.attempts).toEqual([expect.objectContaining({ attempt: 1, outcome: 'success', sentAgain: true })]);
    expect(target.received).toHaveLength(2);
    expect(await prisma.webhookAttempt.findMany({ where: { deliveryId: delivery.id } })).toEqual([
      expect.objectContaining({ attemptNumber: 1, outcome: 'success', statusCode: 200 }),
    ]);
    const history = await handle.fetchHistory();
    expect((history.events ?? []).some((item) => item.workflowTaskTimedOutEventAttributes)).toBe(true);
  }, 120_000);
});

describe('the outbox relay', () => {
  it('delivers an event once per destination even when the relay runs twice, concurrently, or after a half-finished run', async () => {
    const targets = [await receiver(200), await receiver(200)];
    const account = await accountWithDestination(prisma, targets[0]!.url);
    accounts.push(account.accountId);
    const second = await createDestination(prisma, account.accountId, { url: targets[1]!.url });
    const events = [
      await writeEvent(prisma, account.accountId),
      await writeEvent(prisma, account.accountId, 'customer.updated'),
    ];

    const otherRelay = manualRelay(prisma, env.client, TASK_QUEUE, () => accounts);
    try {
      const counts = await Promise.all([relay.runOnce(), otherRelay.runOnce()]);
      expect(counts[0]! + counts[1]!).toBe(2);
      expect(await relay.runOnce()).toBe(0);
      // A relay that stopped after starting the workflows but before marking the events does it all again.
      await prisma.event.updateMany({
        where: { id: { in: events.map((event) => event.id) } },
        data: { dispatchedAt: null },
      });
      expect(await otherRelay.runOnce()).toBe(2);
    } finally {
      await otherRelay.stop();
    }

    for (const event of events) {
      for (const destinationId of [account.destination.id, second.id]) {
        expect((await deliveryHandle(env.client, event.id, destinationId).result()).status).toBe('success');
      }
    }
    expect(await prisma.webhookDelivery.count({ where: { accountId: account.accountId } })).toBe(4);
    for (const target of targets) {
      expect(target.received.map((request) => request.json.id).sort()).toEqual(events.map((event) => event.id).sort());
    }
    const dispatched = await prisma.event.findMany({ where: { id: { in: events.map((event) => event.id) } } });
    expect(dispatched.every((event) => event.dispatchedAt !== null)).toBe(true);
  });

  it('makes attempt 1 itself and starts the workflow with its result: a delivery answered at once is one workflow task, no activity', async () => {
    const target = await receiver(200);
    const { handle, event, destination, delivery } = await dispatchedEvent(target.url);
    expect(target.received).toHaveLength(1);
    const state = await handle.result();
    expect(state).toMatchObject({
      status: 'success',
      attempts: [expect.objectContaining({ attempt: 1, outcome: 'success', statusCode: 200 })],
    });
    const view = await historyView(handle);
    expect(view).toMatchObject({ workflowTasks: 1, activities: [], timers: [] });
    // The input carries the attempt and the schedule the relay drew; BillingStatus was set from the start.
    expect(view.input).toMatchObject({
      eventId: event.id,
      destinationId: destination.id,
      firstAttempt: { attempt: 1, status: 'success' },
    });
    expect((view.input as { retryDelaysMs: number[] }).retryDelaysMs).toEqual(state.retryDelaysMs);
    expect((await handle.describe()).searchAttributes).toMatchObject({ BillingStatus: ['success'] });
    expect(await delivery()).toMatchObject({ status: 'success', attemptCount: 1, lastStatusCode: 200 });
    await recordWorkflowHistories(env.client, handle.workflowId, 'webhook-relay-first-attempt');
  });

  it('after a crash between attempt 1 and the start (the batch not committed), runs again without sending again', async () => {
    const target = await receiver(500);
    const account = await accountWithDestination(prisma, target.url);
    accounts.push(account.accountId);
    const event = await writeEvent(prisma, account.accountId);
    // Temporal goes away after the attempt: the start fails, the pass rolls back, the event stays undispatched.
    const failingStarts = {
      workflow: { start: () => Promise.reject(new Error('Temporal went away (test)')) },
    } as unknown as typeof env.client;
    const crashed = manualRelay(prisma, failingStarts, TASK_QUEUE, () => accounts, {
      temporalNow: () => env.currentTimeMs(),
    });
    await expect(crashed.runOnce()).rejects.toThrow('Temporal went away');
    await crashed.stop();
    expect(target.received).toHaveLength(1);
    expect((await prisma.event.findUniqueOrThrow({ where: { id: event.id } })).dispatchedAt).toBeNull();

    expect(await relay.runOnce()).toBe(1);
    const handle = deliveryHandle(env.client, event.id, account.destination.id);
    // Started with the attempt recorded then (nothing sent again); the retry follows on the schedule.
    expect((await historyView(handle)).input).toMatchObject({
      firstAttempt: { attempt: 1, status: 'retry', statusCode: 500 },
    });
    expect(target.received).toHaveLength(1);
    const state = await handle.result();
    expect(state.status).toBe('failure');
    expect(target.received).toHaveLength(WEBHOOK_MAX_ATTEMPTS);
    expect(await prisma.webhookAttempt.count({ where: { delivery: { eventId: event.id } } })).toBe(
      WEBHOOK_MAX_ATTEMPTS,
    );
    await recordWorkflowHistories(env.client, handle.workflowId, 'webhook-relay-first-retries');
  });

  it("does not hold a batch for a slow destination: the workflow starts without attempt 1 and makes it after the HTTP timeout, finding the relay's", async () => {
    const target = await receiver((_request, index) => (index === 0 ? 'hang' : 200));
    const account = await accountWithDestination(prisma, target.url);
    const event = await writeEvent(prisma, account.accountId);
    const slowRelay = manualRelay(prisma, env.client, TASK_QUEUE, () => [account.accountId], {
      temporalNow: () => env.currentTimeMs(),
      httpTimeoutMs: 1_500,
      firstAttemptWaitMs: 300,
    });
    const started = Date.now();
    expect(await slowRelay.runOnce()).toBe(1);
    expect(Date.now() - started).toBeLessThan(1_500);
    const handle = deliveryHandle(env.client, event.id, account.destination.id);
    expect((await historyView(handle)).input).toMatchObject({ firstAttemptAfterMs: 6_500 });
    // The relay's attempt times out (retryable) and is recorded while the workflow waits.
    await slowRelay.stop();
    const [recorded] = await prisma.webhookAttempt.findMany({ where: { delivery: { eventId: event.id } } });
    expect(recorded).toMatchObject({ attemptNumber: 1, outcome: 'retryable' });

    const state = await handle.result();
    expect(state).toMatchObject({
      status: 'success',
      attempts: [
        expect.objectContaining({ attempt: 1, outcome: 'retryable' }),
        expect.objectContaining({ attempt: 2, outcome: 'success' }),
      ],
    });
    // Attempt 1 was sent once (by the relay); the workflow's attempt 1 found it recorded.
    expect(target.received).toHaveLength(2);
    const view = await historyView(handle);
    expect(view.timers[0]).toBe("after the relay's attempt 1 (a slow destination)");
    expect(view.activities.map((activity) => (activity.result as { attempt: number }).attempt)).toEqual([1, 2]);
    await recordWorkflowHistories(env.client, handle.workflowId, 'webhook-relay-late-first-attempt');
  });

  it('marks events of an account without destinations as dispatched and starts nothing', async () => {
    const { accountId, destination } = await accountWithDestination(prisma, 'https://example.com/hooks');
    await deleteDestination(prisma, accountId, destination.id);
    accounts.push(accountId);
    const event = await writeEvent(prisma, accountId);
    expect(await relay.runOnce()).toBe(1);
    expect((await prisma.event.findUniqueOrThrow({ where: { id: event.id } })).dispatchedAt).not.toBeNull();
    expect(await prisma.webhookDelivery.count({ where: { eventId: event.id } })).toBe(0);
  });
});
