import { serveWorkerMetrics, type WorkerMetricsServer } from '../../src/temporal/worker-metrics';
import { apiClient, createTestAccount } from '../support/harness';
import { families, sample } from '../support/metrics';
import { CARDS, createCustomer, customerWithCard } from '../support/payments';
import { createTerminal } from '../support/payment-plans';
import {
  DAY_MS,
  advanceTo,
  createSubscription,
  expectStatus,
  recurringPrice,
  settled,
  startSubscriptionWorld,
  subscriptionState,
  unix,
  type SubscriptionWorld,
} from '../support/subscriptions';

/**
 * The billing signals of docs/operations.md, "Metrics and alerts", through the real app and worker
 * (time-skipping Temporal): a subscription in dunning and its retry charged by the worker, a terminal
 * payment left waiting, and the worker's /metrics (the same process here, so the same ledger counters).
 */
let world: SubscriptionWorld;
let workerMetrics: WorkerMetricsServer;
beforeAll(async () => {
  // Each scrape reads the database figures again (production reuses them for 10 s).
  process.env.METRICS_CACHE_SECONDS = '0';
  world = await startSubscriptionWorld();
  // No SDK exporter in this process: the worker's /metrics says so and still serves the service's own.
  workerMetrics = await serveWorkerMetrics({ port: 0, host: '127.0.0.1', sdkMetricsUrl: 'http://127.0.0.1:9/metrics' });
});
afterAll(async () => {
  await workerMetrics?.close();
  await world?.close();
});

const scrapeApi = async () => (await fetch(`${world.app.baseUrl}/metrics`)).text();
const scrapeWorker = async () => (await fetch(`http://127.0.0.1:${workerMetrics.port}/metrics`)).text();
const declined = { outcome: 'failed', failure_code: 'card_declined' };

/**
 * A gauge of a scrape equals what `count` reads in the tables, read just before and just after the scrape
 * and found the same: the gauges count every account, and the test files running beside this one share
 * the database and change those rows meanwhile (their subscriptions move, their workflow starts come and go).
 */
async function expectGaugeMatchesTable(
  name: string,
  labels: Record<string, string> | undefined,
  count: () => Promise<number>,
): Promise<void> {
  for (let tries = 1; ; tries++) {
    const counted = await count();
    const gauge = sample(await scrapeApi(), name, labels);
    if ((await count()) === counted) return expect({ name, gauge }).toEqual({ name, gauge: counted });
    if (tries === 20) throw new Error(`${name}: the rows kept changing around 20 scrapes`);
  }
}

it('shows a subscription in dunning, and counts its dunning retry, which the worker charges', async () => {
  const before = await scrapeApi();
  const { customer } = await customerWithCard(world.api, CARDS.declined);
  const created = await createSubscription(world.api, {
    customer: customer.id,
    items: [{ price: await recurringPrice(world.api, { unitAmount: 3000 }), quantity: 1 }],
    trial_days: 0,
    start_date: unix(await world.env.currentTimeMs()),
  });
  await settled(world, created.id);
  expect(expectStatus(await world.api.get(`/subscriptions/${created.id}`), 200).status).toBe('past_due');
  // This file's subscription is among them.
  await expectGaugeMatchesTable('billing_subscriptions', { status: 'past_due' }, () =>
    world.app.prisma.subscription.count({ where: { status: 'past_due' } }),
  );
  const inDunning = await scrapeApi();
  // The API's first charge, declined.
  expect(sample(inDunning, 'billing_charges_total', declined)).toBe(
    (sample(before, 'billing_charges_total', declined) ?? 0) + 1,
  );

  const workerBefore = await scrapeWorker();
  const [dunning] = (await subscriptionState(world, created.id)).dunning;
  await advanceTo(world, created.id, dunning!.failedAt + DAY_MS + 60_000);
  const retried = await world.app.prisma.transaction.count({ where: { invoiceId: dunning!.invoiceId } });
  expect(retried).toBe(2);
  const workerAfter = await scrapeWorker();
  expect(sample(workerAfter, 'billing_charges_total', declined)).toBe(
    (sample(workerBefore, 'billing_charges_total', declined) ?? 0) + 1,
  );
  expect(sample(workerAfter, 'billing_charge_attempts_total', { currency: 'USD' })).toBe(
    (sample(workerBefore, 'billing_charge_attempts_total', { currency: 'USD' }) ?? 0) + 1,
  );
  expect(sample(workerAfter, 'billing_worker_sdk_metrics_up')).toBe(0);
  for (const name of [
    'billing_charges_total',
    'billing_charged_cents_total',
    'billing_refunds_total',
    'process_resident_memory_bytes',
    'nodejs_eventloop_lag_seconds',
  ]) {
    expect(families(workerAfter).has(name)).toBe(true);
  }
}, 90_000);

it('shows a terminal payment waiting longer than the threshold as stuck', async () => {
  const { apiKey } = await createTestAccount(world.app.prisma, { paymentPlans: true, name: 'Terminals Co' });
  const api = apiClient(world.app.baseUrl, apiKey);
  const customer = await createCustomer(api);
  const terminal = await createTerminal(api);
  const plan = expectStatus(
    await api.post('/payment-plans', {
      customer: customer.id,
      total_amount: 300,
      currency: 'USD',
      installments_count: 3,
      interval: 'month',
    }),
    201,
  );
  const sent = expectStatus(
    await api.post(`/payment-plans/${plan.id}/deposit/terminal`, { terminal: terminal.id }),
    202,
  );
  const paymentId: string = sent.deposit.attempt.payment;
  const waiting = { state: 'waiting' };

  const fresh = sample(await scrapeApi(), 'billing_terminal_payments_stuck', waiting);
  expect(fresh).toEqual(expect.any(Number));
  // 20 minutes without news from the terminal (METRICS_TERMINAL_STUCK_MINUTES is 15).
  await world.app.prisma.paymentPlanPayment.update({
    where: { id: paymentId },
    data: { stateChangedAt: new Date(Date.now() - 20 * 60_000) },
  });
  const text = await scrapeApi();
  expect(sample(text, 'billing_terminal_payments_stuck', waiting)).toBe(fresh! + 1);
  expect(sample(text, 'billing_terminal_payments_stuck', { state: 'resolving' })).toEqual(expect.any(Number));
  expect(sample(text, 'billing_payment_plans', { status: 'pending' })).toBeGreaterThanOrEqual(1);
});

it('shows the workflow_starts backlog and its oldest row', async () => {
  const { accountId } = await createTestAccount(world.app.prisma);
  // A start the API recorded and could not make (Temporal down), 10 minutes ago, on a queue no sweep reads.
  await world.app.prisma.workflowStart.create({
    data: {
      workflowId: `metrics-test:${accountId}`,
      accountId,
      workflowType: 'none',
      taskQueue: 'metrics-test-no-sweep',
      args: [],
      options: {},
      createdAt: new Date(Date.now() - 600_000),
    },
  });
  // This row among them.
  await expectGaugeMatchesTable('billing_workflow_starts_pending', undefined, () =>
    world.app.prisma.workflowStart.count(),
  );
  const text = await scrapeApi();
  expect(sample(text, 'billing_workflow_starts_oldest_age_seconds')).toBeGreaterThanOrEqual(600);
  await world.app.prisma.workflowStart.delete({ where: { workflowId: `metrics-test:${accountId}` } });
});
