import pino from 'pino';
import { HOUR_MS } from '../../src/lib/durations';
import { installWorkerRuntime } from '../../src/temporal/runtime';
import { BILLING_STATUS } from '../../src/temporal/search-attributes';
import { CARDS, customerWithCard } from '../support/payments';
import { freePort } from '../support/ports';
import {
  advanceTo,
  createSubscription,
  expectStatus,
  invoicesOf,
  recordHistories,
  recurringPrice,
  startSubscriptionWorld,
  subscriptionEvents,
  unix,
  workflowHandle,
  type SubscriptionWorld,
} from '../support/subscriptions';

/**
 * A period the workflow cannot invoice (docs/decisions.md §7, "A period that cannot be invoiced") is
 * never skipped in silence: the subscription reads past_due (GET, lists, BillingStatus) until a later
 * period is invoiced, subscription.period_not_invoiced names the period and the refusal, and the worker
 * counts it (billing_periods_not_invoiced, alert BillingPeriodNotInvoiced in deploy/prometheus/). On the
 * time-skipping server, with the worker runtime's Prometheus exporter as the worker process installs it.
 */

let metricsPort: number;
let world: SubscriptionWorld;

beforeAll(async () => {
  metricsPort = await freePort();
  // Before any connection of this file: the runtime is installed once per process, as src/cli/worker.ts does.
  installWorkerRuntime({ logger: pino({ level: 'warn' }), sdkLogLevel: 'WARN', metricsPort });
  world = await startSubscriptionWorld();
});
afterAll(() => world?.close());

/** billing_periods_not_invoiced{code} counted by this file's worker (its task queue), 0 before the first. */
async function notInvoicedCount(code: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const line = text
    .split('\n')
    .find(
      (candidate) =>
        candidate.startsWith('billing_periods_not_invoiced') &&
        candidate.includes(`code="${code}"`) &&
        candidate.includes(`taskQueue="${world.taskQueue}"`),
    );
  return line === undefined ? 0 : Number(line.split(' ').at(-1));
}

it('a renewal whose invoice is refused leaves the subscription past_due with subscription.period_not_invoiced and a counted metric, until a later period is invoiced', async () => {
  const { customer } = await customerWithCard(world.api, CARDS.succeeds);
  const price = await recurringPrice(world.api, { unitAmount: 2500 });
  const subscription = await createSubscription(world.api, {
    customer: customer.id,
    items: [{ price, quantity: 1 }],
    trial_days: 0,
    start_date: unix(await world.env.currentTimeMs()),
  });
  const handle = workflowHandle(world, subscription.id);
  const countedBefore = await notInvoicedCount('resource_missing');
  // The API refuses to delete a customer with a running subscription (409), so the customer is removed
  // under the workflow directly, as a support correction or a race would leave it: the renewal's invoice is refused.
  expectStatus(await world.api.delete(`/customers/${customer.id}`), 409, 'DELETE /customers');
  await world.app.prisma.customer.update({ where: { id: customer.id }, data: { deletedAt: new Date() } });

  const periodStart = subscription.current_period_end;
  const state = (await advanceTo(world, subscription.id, periodStart * 1000 + HOUR_MS))!;
  expect(await invoicesOf(world, subscription.id)).toHaveLength(1);
  expect(state.lastError).toContain(customer.id);
  expect(state.uninvoicedSince).toBe(periodStart * 1000);
  expect(state.billingStatus).toBe('past_due');
  expect((await handle.describe()).typedSearchAttributes.get(BILLING_STATUS)).toBe('past_due');
  const shown = expectStatus(await world.api.get(`/subscriptions/${subscription.id}`), 200, 'GET');
  expect(shown).toMatchObject({ status: 'past_due', current_period_start: periodStart });
  const pastDue = expectStatus(await world.api.get('/subscriptions?status=past_due'), 200, 'list').data;
  expect(pastDue.map((listed: { id: string }) => listed.id)).toContain(subscription.id);

  const events = await subscriptionEvents(world, subscription.id);
  const notInvoiced = events.filter((event) => event.type === 'subscription.period_not_invoiced');
  expect(notInvoiced).toHaveLength(1);
  expect(notInvoiced[0]!.data).toMatchObject({
    id: subscription.id,
    // Webhook payloads know active, canceled and paused: past_due is sent as active (decisions.md §7).
    status: 'active',
    current_period_start: periodStart,
    period_start: periodStart,
    period_end: shown.current_period_end,
    failure_code: 'resource_missing',
    failure_message: expect.stringContaining(customer.id),
  });
  // subscription.updated with the new period comes first, in the same transaction.
  const [updated] = events.filter((event) => event.seq < notInvoiced[0]!.seq).slice(-1);
  expect(updated).toMatchObject({ type: 'subscription.updated', data: { current_period_start: periodStart } });
  expect(await notInvoicedCount('resource_missing')).toBe(countedBefore + 1);

  // The customer restored: the next period is invoiced and the subscription is active again.
  await world.app.prisma.customer.update({ where: { id: customer.id }, data: { deletedAt: null } });
  const recovered = (await advanceTo(world, subscription.id, shown.current_period_end * 1000 + HOUR_MS))!;
  expect(recovered.uninvoicedSince).toBeUndefined();
  expect(recovered.lastError).toBeNull();
  expect(recovered.billingStatus).toBe('active');
  expect((await invoicesOf(world, subscription.id)).map((invoice) => invoice.status)).toEqual(['paid', 'paid']);
  expect(expectStatus(await world.api.get(`/subscriptions/${subscription.id}`), 200, 'GET').status).toBe('active');
  expect((await handle.describe()).typedSearchAttributes.get(BILLING_STATUS)).toBe('active');
  expect(await notInvoicedCount('resource_missing')).toBe(countedBefore + 1);
  await recordHistories(world, subscription.id, 'renewal-not-invoiced-past-due');
});
