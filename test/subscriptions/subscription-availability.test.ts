import { Connection } from '@temporalio/client';
import { createPrisma, type Db } from '../../src/db/prisma';
import { startWorkflowStartSweeper } from '../../src/temporal/workflow-starts';
import { subscriptionWorkflowId } from '../../workflows/subscription-messages';
import { apiClient, createTestAccount, startTestApp, type ApiClient, type TestApp } from '../support/harness';
import { customerWithCard, CARDS, heldGateways, wrappedGateways } from '../support/payments';
import { reconcilePayments } from '../../src/use-cases/payment-reconciliation';
import { registeredGateways } from '../../src/gateway-registrations';
import { renewalAttemptKey } from '../../src/subscriptions/period-billing';
import {
  createSubscription,
  expectStatus,
  invoicesOf,
  recurringPrice,
  settled,
  startSubscriptionWorld,
  subscriptionEvents,
  unix,
  workflowHandle,
  type SubscriptionWorld,
} from '../support/subscriptions';
import { freePort } from '../support/ports';
import { temporalClient } from '../../src/temporal/client';

// What the subscription API answers when Temporal is down or billing is slow: the truth, quickly.

async function timed<T>(call: () => Promise<T>): Promise<{ answer: T; ms: number }> {
  const started = Date.now();
  const answer = await call();
  return { answer, ms: Date.now() - started };
}

/**
 * Starts what earlier tests left in the world's workflow_starts, so that the test's own sweep counts
 * only its row: on a loaded machine a start can exceed the API's 2 s deadline yet happen, leaving the
 * row for the worker's sweep (which finds it started), and the API deletes the row of a start it made
 * without waiting.
 */
async function sweepEarlierStarts(world: SubscriptionWorld): Promise<void> {
  await startWorkflowStartSweeper({
    prisma: world.app.prisma,
    temporal: world.env.client,
    taskQueue: world.taskQueue,
    olderThanMs: 0,
    background: false,
  }).runOnce();
}

describe('with Temporal down', () => {
  let world: SubscriptionWorld;
  let down: TestApp;
  let connection: Connection;
  let up: ApiClient;
  let downApi: ApiClient;
  let otherApi: ApiClient;
  let downAccountId: string;

  beforeAll(async () => {
    world = await startSubscriptionWorld();
    connection = Connection.lazy({ address: `127.0.0.1:${await freePort()}` });
    // The same database, with a Temporal client that cannot reach its server.
    down = await startTestApp({ temporal: temporalClient(connection), taskQueue: world.taskQueue });
    const { apiKey, accountId } = await createTestAccount(world.app.prisma, { name: 'Temporal down' });
    downAccountId = accountId;
    up = apiClient(world.app.baseUrl, apiKey);
    downApi = apiClient(down.baseUrl, apiKey);
    otherApi = apiClient(world.app.baseUrl, (await createTestAccount(world.app.prisma, { name: 'Other' })).apiKey);
  });

  afterAll(async () => {
    await down.close();
    await world.close();
  });

  it('changes of a running subscription, and its upcoming invoice, answer 503 with Retry-After within a few seconds; nothing is written', async () => {
    const { customer } = await customerWithCard(up);
    const price = await recurringPrice(up);
    const subscription = await createSubscription(up, {
      customer: customer.id,
      items: [{ price, quantity: 1 }],
      trial_days: 0,
      start_date: unix(await world.env.currentTimeMs()),
    });
    await settled(world, subscription.id);
    const before = expectStatus(await up.get(`/subscriptions/${subscription.id}`), 200);

    const calls: [string, () => Promise<{ status: number; body: any; headers: Headers }>][] = [
      ['PATCH', () => downApi.patch(`/subscriptions/${subscription.id}`, { collection_method: 'send_invoice' })],
      ['DELETE', () => downApi.delete(`/subscriptions/${subscription.id}`)],
      ['DELETE at period end', () => downApi.delete(`/subscriptions/${subscription.id}?at_period_end=true`)],
      ['pause', () => downApi.post(`/subscriptions/${subscription.id}/pause`)],
      ['resume', () => downApi.post(`/subscriptions/${subscription.id}/resume`)],
      // A read of the workflow's state: its first call to Temporal is the probe (no round trip of its own).
      ['upcoming invoice', () => downApi.get(`/invoices/upcoming?subscription=${subscription.id}`)],
    ];
    for (const [name, call] of calls) {
      const { answer, ms } = await timed(call);
      expect([
        name,
        answer.status,
        answer.headers.get('retry-after'),
        answer.body.error?.type,
        answer.body.error?.code,
      ]).toEqual([name, 503, '5', 'api_error', 'temporal_unavailable']);
      expect([name, ms < 5_000]).toEqual([name, true]);
    }
    expect(expectStatus(await up.get(`/subscriptions/${subscription.id}`), 200)).toEqual(before);
    // Reads need only the database.
    expect(expectStatus(await downApi.get(`/subscriptions/${subscription.id}`), 200)).toEqual(before);
  });

  it('POST /subscriptions answers 201 (first invoice charged); the worker sweep starts its workflow once Temporal answers, and it bills on', async () => {
    await sweepEarlierStarts(world);
    const { customer } = await customerWithCard(up);
    const price = await recurringPrice(up);
    const startDate = unix(await world.env.currentTimeMs());
    const { answer, ms } = await timed(() =>
      downApi.post('/subscriptions', {
        customer: customer.id,
        items: [{ price, quantity: 1 }],
        trial_days: 0,
        start_date: startDate,
      }),
    );
    expect(ms).toBeLessThan(5_000);
    const subscription = expectStatus(answer, 201);
    const [invoice] = await invoicesOf(world, subscription.id);
    expect(subscription).toMatchObject({ status: 'active', latest_invoice: invoice!.id });
    expect(invoice).toMatchObject({ status: 'paid', attemptCount: 1 });
    expect(
      await world.app.prisma.workflowStart.count({ where: { workflowId: subscriptionWorkflowId(subscription.id) } }),
    ).toBe(1);
    await expect(workflowHandle(world, subscription.id).describe()).rejects.toThrow();

    // A change before the workflow runs: 409 subscription_starting (ask again), not "ended"; another account's is 404.
    const early = await up.patch(`/subscriptions/${subscription.id}`, { collection_method: 'send_invoice' });
    expect([early.status, early.body.error?.code]).toEqual([409, 'subscription_starting']);
    expect(
      (await otherApi.patch(`/subscriptions/${subscription.id}`, { collection_method: 'send_invoice' })).status,
    ).toBe(404);
    expect((await otherApi.get(`/subscriptions/${subscription.id}`)).status).toBe(404);

    // The worker's sweep (Temporal answers it) starts what the API recorded, once.
    const sweeper = startWorkflowStartSweeper({
      prisma: world.app.prisma,
      temporal: world.env.client,
      taskQueue: world.taskQueue,
      olderThanMs: 0,
      background: false,
    });
    expect(await sweeper.runOnce()).toBe(1);
    expect(await sweeper.runOnce()).toBe(0);
    await sweeper.stop();
    const state = await settled(world, subscription.id);
    expect(state).toMatchObject({ status: 'active', nextPeriodIndex: 1, invoicesIssued: 1, dunning: [] });
    expect(await world.app.prisma.transaction.count({ where: { invoiceId: invoice!.id, type: 'payment' } })).toBe(1);
    const types = (await subscriptionEvents(world, subscription.id, downAccountId)).map((event) => event.type);
    expect(types).toEqual([
      'subscription.created',
      'invoice.created',
      'invoice.finalized',
      'invoice.payment_succeeded',
      'subscription.updated',
    ]);
    expect(
      expectStatus(await up.patch(`/subscriptions/${subscription.id}`, { collection_method: 'send_invoice' }), 200),
    ).toMatchObject({ collection_method: 'send_invoice' });
  });

  it('a recorded start the API never made (it stopped between commit and start) is started by the sweep and the subscription bills', async () => {
    await sweepEarlierStarts(world);
    const { customer } = await customerWithCard(up);
    const price = await recurringPrice(up);
    // Scheduled: nothing is due at creation; the workflow bills when the start date comes.
    const startAt = (await world.env.currentTimeMs()) + 86_400_000;
    const subscription = expectStatus(
      await downApi.post('/subscriptions', {
        customer: customer.id,
        items: [{ price, quantity: 1 }],
        trial_days: 0,
        start_date: unix(startAt),
      }),
      201,
    );
    expect(subscription).toMatchObject({ status: 'scheduled', latest_invoice: null });
    const sweeper = startWorkflowStartSweeper({
      prisma: world.app.prisma,
      temporal: world.env.client,
      taskQueue: world.taskQueue,
      olderThanMs: 0,
      background: false,
    });
    expect(await sweeper.runOnce()).toBe(1);
    await sweeper.stop();
    await settled(world, subscription.id);
    await world.env.sleep(86_400_000 + 1_000);
    const state = await settled(world, subscription.id);
    expect(state).toMatchObject({ status: 'active', nextPeriodIndex: 1 });
    const [invoice] = await invoicesOf(world, subscription.id);
    expect(invoice).toMatchObject({ status: 'paid', billingReason: 'subscription_create' });
    expect(
      await world.app.prisma.workflowStart.count({ where: { workflowId: subscriptionWorkflowId(subscription.id) } }),
    ).toBe(0);
  });
});

describe("when the API's first charge is slow, the workflow's own attempt overlaps it", () => {
  let world: SubscriptionWorld;
  let gatewayDb: Db;
  let held: ReturnType<typeof heldGateways>;

  beforeAll(async () => {
    gatewayDb = createPrisma(process.env.DATABASE_URL!, 2);
    held = heldGateways(gatewayDb);
    world = await startSubscriptionWorld({ gateways: held.gateways, worker: false });
  });

  afterAll(async () => {
    held.release();
    await world.close();
    await gatewayDb.$disconnect();
  });

  it('POST /subscriptions answers 202 after the creation wait (billing pending); the charge is made once, by whichever attempt gets there', async () => {
    const { customer } = await customerWithCard(world.api);
    const price = await recurringPrice(world.api);
    const startDate = unix(await world.env.currentTimeMs());
    const creation = timed(() =>
      world.api.post('/subscriptions', {
        customer: customer.id,
        items: [{ price, quantity: 1 }],
        trial_days: 0,
        start_date: startDate,
      }),
    );
    await held.chargeStarted;
    // The workflow runs once the API's attempt is at the gateway: its attempt 1 finds that one pending.
    await world.startWorker();
    const { answer, ms } = await creation;
    expect(ms).toBeGreaterThanOrEqual(20_000);
    expect(answer.status).toBe(202);
    const [invoice] = await invoicesOf(world, answer.body.id);
    expect(answer.body).toMatchObject({ object: 'subscription', status: 'active', latest_invoice: invoice!.id });
    // Meanwhile the workflow's attempt 1 (same attempt key) found the API's attempt pending and finished it.
    const state = await settled(world, answer.body.id);
    expect(state).toMatchObject({ nextPeriodIndex: 1, dunning: [] });
    expect((await invoicesOf(world, answer.body.id))[0]).toMatchObject({ status: 'paid', attemptCount: 1 });

    held.release();
    await new Promise((resolve) => setTimeout(resolve, 500));
    const charges = await world.app.prisma.gatewayCharge.findMany({
      where: { accountId: world.accountId, kind: 'charge', idempotencyKey: { contains: invoice!.id } },
    });
    expect(charges).toHaveLength(1);
    expect(await world.app.prisma.transaction.count({ where: { invoiceId: invoice!.id, type: 'payment' } })).toBe(1);
    const types = (await subscriptionEvents(world, answer.body.id)).map((event) => event.type);
    expect(types.filter((type) => type === 'invoice.payment_succeeded')).toHaveLength(1);
  });

  it('a declined first charge, attempted by both: one charge, one invoice.payment_failed, and the dunning schedule starts', async () => {
    const { customer } = await customerWithCard(world.api, CARDS.declined);
    const price = await recurringPrice(world.api);
    const answer = await world.api.post('/subscriptions', {
      customer: customer.id,
      items: [{ price, quantity: 1 }],
      trial_days: 0,
      start_date: unix(await world.env.currentTimeMs()),
    });
    // The held gateway was released by the test above: the API's attempt and the workflow's run side by side.
    expect(answer.status).toBe(201);
    const state = await settled(world, answer.body.id);
    const [invoice] = await invoicesOf(world, answer.body.id);
    expect(invoice).toMatchObject({ status: 'open', attemptCount: 1 });
    expect(state!.dunning).toEqual([expect.objectContaining({ invoiceId: invoice!.id, attempts: 1 })]);
    expect(
      await world.app.prisma.gatewayCharge.count({
        where: { accountId: world.accountId, kind: 'charge', idempotencyKey: { contains: invoice!.id } },
      }),
    ).toBe(1);
    const types = (await subscriptionEvents(world, answer.body.id)).map((event) => event.type);
    expect(types.filter((type) => type === 'invoice.payment_failed')).toHaveLength(1);
  });
});

describe("when the API stops between the creation's commit and its first charge", () => {
  let world: SubscriptionWorld;
  let gatewayDb: Db;
  let otherApi: ApiClient;

  beforeAll(async () => {
    gatewayDb = createPrisma(process.env.DATABASE_URL!, 2);
    // The API's processor call never happens (its process stopped there): nothing reaches the processor.
    const stopped = wrappedGateways(gatewayDb, () => ({
      charge: () => Promise.reject(new Error('the API process stopped before the processor was called')),
    }));
    world = await startSubscriptionWorld({ gateways: stopped, worker: false });
    otherApi = apiClient(world.app.baseUrl, (await createTestAccount(world.app.prisma, { name: 'Other' })).apiKey);
  });

  afterAll(async () => {
    await world.close();
    await gatewayDb.$disconnect();
  });

  it('the first attempt committed with the creation is finished by the reconciliation under its key: one charge, the period billed once', async () => {
    const { customer } = await customerWithCard(world.api);
    const price = await recurringPrice(world.api);
    const startDate = unix(await world.env.currentTimeMs());
    const answer = await world.api.post('/subscriptions', {
      customer: customer.id,
      items: [{ price, quantity: 1 }],
      trial_days: 0,
      start_date: startDate,
    });
    expect(answer.status).toBe(202);
    const [invoice] = await invoicesOf(world, answer.body.id);
    expect(invoice).toMatchObject({ status: 'open', attemptCount: 1 });
    // The attempt was opened in the creation's transaction, before any call to the processor.
    // Its period starts at the API's second, which may be one after the test's start_date (then in the past).
    expect(invoice!.periodStart.getTime()).toBeGreaterThanOrEqual(startDate * 1000);
    const attemptKey = renewalAttemptKey(answer.body.id, invoice!.periodStart.getTime(), 1);
    const opened = await world.app.prisma.transaction.findMany({ where: { invoiceId: invoice!.id, type: 'payment' } });
    expect(opened).toEqual([
      expect.objectContaining({ status: 'pending', attempt: 1, attemptKey, gatewayReference: null }),
    ]);
    expect(await world.app.prisma.gatewayCharge.count({ where: { accountId: world.accountId, kind: 'charge' } })).toBe(
      0,
    );
    expect((await otherApi.get(`/subscriptions/${answer.body.id}`)).status).toBe(404);
    expect((await otherApi.get(`/invoices/${invoice!.id}`)).status).toBe(404);

    // The reconciliation charges the entry under its own key; the workflow's attempt 1 then finds it paid.
    await reconcilePayments(world.app.prisma, registeredGateways(world.app.prisma), { pendingOlderThanMs: 0 });
    await world.startWorker();
    const state = await settled(world, answer.body.id);
    expect(state).toMatchObject({ nextPeriodIndex: 1, dunning: [] });
    expect((await invoicesOf(world, answer.body.id))[0]).toMatchObject({ status: 'paid', attemptCount: 1 });
    const payments = await world.app.prisma.transaction.findMany({
      where: { invoiceId: invoice!.id, type: 'payment' },
    });
    expect(payments).toEqual([expect.objectContaining({ id: opened[0]!.id, status: 'succeeded', attemptKey })]);
    expect(
      await world.app.prisma.gatewayCharge.count({
        where: { accountId: world.accountId, kind: 'charge', idempotencyKey: { contains: invoice!.id } },
      }),
    ).toBe(1);
    const types = (await subscriptionEvents(world, answer.body.id)).map((event) => event.type);
    expect(types.filter((type) => type === 'invoice.payment_succeeded')).toHaveLength(1);
  });
});
