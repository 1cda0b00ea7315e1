import { Client, Connection } from '@temporalio/client';
import type { Worker } from '@temporalio/worker';
import { createActivities } from '../activities';
import type { RenewalChargeInput } from '../activities/subscriptions';
import { apiClient, createTestAccount, startTestApp, type ApiClient, type TestApp } from './support/harness';
import { customerWithCard } from './support/payments';
import { createSubscription, expectStatus, invoicesOf, recurringPrice, settled, startSubscriptionWorld, unix, type SubscriptionWorld } from './support/subscriptions';
import { createEnvWorker } from './support/temporal';
import { freePort } from './support/ports';

// What the subscription API answers when Temporal is down or billing is slow (issue 10 item 20): the truth, quickly.

async function timed<T>(call: () => Promise<T>): Promise<{ answer: T; ms: number }> {
  const started = Date.now();
  const answer = await call();
  return { answer, ms: Date.now() - started };
}

describe('with Temporal down', () => {
  let world: SubscriptionWorld;
  let down: TestApp;
  let connection: Connection;
  let up: ApiClient;
  let downApi: ApiClient;

  beforeAll(async () => {
    world = await startSubscriptionWorld();
    connection = Connection.lazy({ address: `127.0.0.1:${await freePort()}` });
    // The same database, with a Temporal client that cannot reach its server.
    down = await startTestApp({ temporal: new Client({ connection }), taskQueue: world.taskQueue });
    const { apiKey } = await createTestAccount(world.app.prisma, { name: 'Temporal down' });
    up = apiClient(world.app.baseUrl, apiKey);
    downApi = apiClient(down.baseUrl, apiKey);
  });

  afterAll(async () => {
    await down.close();
    await world.close();
  });

  it('every subscription change answers 503 with Retry-After and the JSON error within a few seconds; nothing is written', async () => {
    const { customer } = await customerWithCard(up);
    const price = await recurringPrice(up);
    const body = { customer: customer.id, items: [{ price, quantity: 1 }], trial_days: 0, start_date: unix(await world.env.currentTimeMs()) };
    const subscription = await createSubscription(up, body);
    const count = () => world.app.prisma.subscription.count({ where: { customerId: customer.id } });

    const calls: [string, () => Promise<{ status: number; body: any; headers: Headers }>][] = [
      ['POST', () => downApi.post('/subscriptions', body)],
      ['PATCH', () => downApi.patch(`/subscriptions/${subscription.id}`, { collection_method: 'send_invoice' })],
      ['DELETE', () => downApi.delete(`/subscriptions/${subscription.id}`)],
      ['DELETE at period end', () => downApi.delete(`/subscriptions/${subscription.id}?at_period_end=true`)],
      ['pause', () => downApi.post(`/subscriptions/${subscription.id}/pause`)],
      ['resume', () => downApi.post(`/subscriptions/${subscription.id}/resume`)],
    ];
    for (const [name, call] of calls) {
      const { answer, ms } = await timed(call);
      expect([name, answer.status, answer.headers.get('retry-after'), answer.body.error?.type, answer.body.error?.code]).toEqual([
        name,
        503,
        '5',
        'api_error',
        'temporal_unavailable',
      ]);
      expect([name, ms < 5_000]).toEqual([name, true]);
    }
    expect(await count()).toBe(1);
    expect(expectStatus(await up.get(`/subscriptions/${subscription.id}`), 200)).toEqual(subscription);
    // Reads need only the database.
    expect(expectStatus(await downApi.get(`/subscriptions/${subscription.id}`), 200)).toEqual(subscription);
  });
});

describe('when the first charge takes longer than the creation wait', () => {
  let world: SubscriptionWorld;
  let worker: Worker;
  let running: Promise<void>;
  let releaseCharge: () => void = () => {};
  let chargeStarted: Promise<void>;

  beforeAll(async () => {
    world = await startSubscriptionWorld({ worker: false });
    const activities = createActivities({ prisma: world.app.prisma });
    let started: () => void = () => {};
    chargeStarted = new Promise((resolve) => (started = resolve));
    const released = new Promise<void>((resolve) => (releaseCharge = resolve));
    worker = await createEnvWorker(world.env, world.app.prisma, world.taskQueue, {
      ...activities,
      // A gateway that answers late: the charge waits until the test lets it go on.
      async chargeRenewalInvoice(input: RenewalChargeInput) {
        started();
        await released;
        return activities.chargeRenewalInvoice(input);
      },
    });
    running = worker.run();
  });

  afterAll(async () => {
    releaseCharge();
    worker.shutdown();
    await running;
    await world.close();
  });

  it('POST /subscriptions answers 202 (billing pending, no stale latest_invoice); the invoice shows up once charged', async () => {
    const { customer } = await customerWithCard(world.api);
    const price = await recurringPrice(world.api);
    const creation = world.api.post('/subscriptions', { customer: customer.id, items: [{ price, quantity: 1 }], trial_days: 0, start_date: unix(await world.env.currentTimeMs()) });
    await chargeStarted;
    // The creation wait (20 s of workflow time) runs out while the charge is still at the gateway.
    await world.env.sleep(25_000);
    const answer = await creation;
    expect(answer.status).toBe(202);
    expect(answer.body).toMatchObject({ object: 'subscription', status: 'active', latest_invoice: null });
    const [invoice] = await invoicesOf(world, answer.body.id);
    expect(invoice).toMatchObject({ status: 'open' });

    releaseCharge();
    await settled(world, answer.body.id);
    expect(expectStatus(await world.api.get(`/subscriptions/${answer.body.id}`), 200)).toMatchObject({ status: 'active', latest_invoice: invoice!.id });
    expect((await invoicesOf(world, answer.body.id))[0]).toMatchObject({ status: 'paid' });
  });
});
