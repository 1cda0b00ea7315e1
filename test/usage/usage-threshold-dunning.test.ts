import {
  addPaymentMethod,
  bankBody,
  BANK_ACCOUNTS,
  createCustomer,
  customerWithCard,
  CARDS,
  settlementTimerSet,
} from '../support/payments';
import { BANK_DEBIT_SETTLEMENT_MS } from '../../workflows/bank-debit-settlement';
import {
  advanceTo,
  createSubscription,
  DAY_MS,
  expectStatus,
  recordHistories,
  settled,
  startSubscriptionWorld,
  subscriptionEvents,
  subscriptionState,
  unix,
  type SubscriptionWorld,
} from '../support/subscriptions';
import { meteredPrice } from '../support/usage';
import { subscriptionWorkflowId } from '../../workflows/subscription-messages';
import { apiClient, createTestAccount } from '../support/harness';

// An early (threshold) invoice whose charge is declined is dunned as the period's invoice is (docs/decisions.md
// §43, "Billing thresholds"; §7): past_due, the account's retry schedule, each failure its invoice.payment_failed,
// and the account's outcome once no retry is left. On a time-skipping Temporal server, through the HTTP API.

let world: SubscriptionWorld;

beforeAll(async () => {
  world = await startSubscriptionWorld();
}, 60_000);

afterAll(() => world?.close());

/** What a wait that timed out saw: the state's dunning, held and busy, and the usage notices the workflow received. */
async function described(subscriptionId: string, on: SubscriptionWorld): Promise<string> {
  const state = await subscriptionState(on, subscriptionId).catch((error) => ({ error: String(error) }));
  const history = await on.env.client.workflow
    .getHandle(subscriptionWorkflowId(subscriptionId))
    .fetchHistory()
    .catch(() => null);
  const notices = history?.events?.filter(
    (event) => event.workflowExecutionSignaledEventAttributes?.signalName === 'usageReported',
  ).length;
  const { dunning, held, busy, error } = state as { dunning?: unknown; held?: unknown; busy?: unknown; error?: string };
  return JSON.stringify({ dunning, held, busy, error, usageReportedSignals: notices ?? 'history not read' });
}

/**
 * Waits until the workflow's state satisfies `done` (it acts on the usage notice after the 202): bounded by the
 * test's own timeout, not a shorter one, since a busy machine takes its time to run the workflow's tasks.
 */
async function stateWhen(subscriptionId: string, done: (state: any) => boolean, on: SubscriptionWorld = world) {
  const deadline = Date.now() + 150_000;
  for (;;) {
    const state = await subscriptionState(on, subscriptionId).catch(() => null);
    if (state && done(state)) return state;
    if (Date.now() > deadline) throw new Error(`state of ${subscriptionId}: ${await described(subscriptionId, on)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

it('retries a declined early invoice on the account schedule, past_due meanwhile, then applies the outcome', async () => {
  expectStatus(await world.api.put('/settings/dunning', { retry_days: [1, 3], outcome: 'keep_active' }), 200);
  const { eventName, price } = await meteredPrice(world.api, { unit_amount: 10 });
  const { customer } = await customerWithCard(world.api, CARDS.declined);
  const startedAt = unix(await world.env.currentTimeMs());
  const subscription = await createSubscription(world.api, {
    customer: customer.id,
    items: [{ price }],
    trial_days: 0,
    start_date: startedAt,
    billing_thresholds: { amount_gte: 1000 },
  });
  // Metered items only: the first invoice is $0, paid without a charge.
  await settled(world, subscription.id);
  expect(expectStatus(await world.api.get(`/subscriptions/${subscription.id}`), 200).status).toBe('active');

  // At the period's start as the API dated it (it may be a second after the requested start_date).
  const timestamp = subscription.current_period_start;
  const event = { id: 'u-1', event_name: eventName, customer: customer.id, timestamp };
  expectStatus(await world.api.post('/usage-events', { events: [{ ...event, properties: { tokens: 150 } }] }), 202);
  const entry = (await stateWhen(subscription.id, (state) => state.dunning.length === 1)).dunning[0]!;
  await settled(world, subscription.id);
  const early = expectStatus(await world.api.get(`/invoices/${entry.invoiceId}`), 200);
  expect([early.billing_reason, early.status, early.total, early.attempt_count]).toEqual([
    'subscription_threshold',
    'open',
    1500,
    1,
  ]);
  expect(expectStatus(await world.api.get(`/subscriptions/${subscription.id}`), 200).status).toBe('past_due');
  const failures = async () =>
    (await subscriptionEvents(world, subscription.id)).filter(
      (item) => item.type === 'invoice.payment_failed' && (item.data as { id: string }).id === early.id,
    ).length;
  expect(await failures()).toBe(1);
  const other = apiClient(world.app.baseUrl, (await createTestAccount(world.app.prisma, { name: 'Other' })).apiKey);
  expect((await other.get(`/invoices/${early.id}`)).status).toBe(404);

  // Day 1 after the decline: the first retry, declined again.
  await advanceTo(world, subscription.id, entry.failedAt + DAY_MS + 1000);
  expect(expectStatus(await world.api.get(`/invoices/${early.id}`), 200).attempt_count).toBe(2);
  expect(await failures()).toBe(2);
  expect(expectStatus(await world.api.get(`/subscriptions/${subscription.id}`), 200).status).toBe('past_due');

  // Day 3: the last retry; keep_active leaves the invoice open and the subscription billing on.
  await advanceTo(world, subscription.id, entry.failedAt + 3 * DAY_MS + 1000);
  const after = expectStatus(await world.api.get(`/invoices/${early.id}`), 200);
  expect([after.status, after.attempt_count, await failures()]).toEqual(['open', 3, 3]);
  expect(expectStatus(await world.api.get(`/subscriptions/${subscription.id}`), 200).status).toBe('active');
  expect((await subscriptionState(world, subscription.id)).dunning).toEqual([]);
  await recordHistories(world, subscription.id, 'threshold-invoice-dunning');
}, 240_000);

describe('an early invoice paid by bank debit', () => {
  // Its own world: usage is dated by the wall clock, which the world above has left days behind its Temporal's.
  let world: SubscriptionWorld;

  beforeAll(async () => {
    world = await startSubscriptionWorld();
  }, 60_000);

  afterAll(() => world?.close());

  it('holds an early invoice paid by bank debit until the bank answers; its return starts that invoice dunning', async () => {
    expectStatus(await world.api.put('/settings/dunning', { retry_days: [1], outcome: 'keep_active' }), 200);
    const { eventName, price } = await meteredPrice(world.api, { unit_amount: 10 });
    const customer = await createCustomer(world.api);
    const account = await addPaymentMethod(world.api, customer.id, bankBody(BANK_ACCOUNTS.insufficientFunds));
    const subscription = await createSubscription(world.api, {
      customer: customer.id,
      items: [{ price }],
      trial_days: 0,
      start_date: unix(await world.env.currentTimeMs()),
      default_payment_method: account.id,
      billing_thresholds: { amount_gte: 1000 },
    });
    await settled(world, subscription.id);

    const event = { id: 'bank-u-1', event_name: eventName, customer: customer.id };
    const usage = { ...event, timestamp: subscription.current_period_start, properties: { tokens: 120 } };
    expectStatus(await world.api.post('/usage-events', { events: [usage] }), 202);
    const held = (await stateWhen(subscription.id, (state) => (state.held ?? []).length === 1, world)).held![0]!;
    await settled(world, subscription.id);
    const early = expectStatus(await world.api.get(`/invoices/${held.invoiceId}`), 200);
    expect([early.billing_reason, early.status, early.total, early.attempt_count]).toEqual([
      'subscription_threshold',
      'open',
      1200,
      1,
    ]);
    const debits = async () =>
      expectStatus(await world.api.get(`/invoices/${early.id}/transactions`), 200).data.map(
        (entry: { attempt: number; status: string }) => [entry.attempt, entry.status],
      );
    expect(await debits()).toEqual([[1, 'pending']]);
    // The bank holds it: neither past_due nor retried meanwhile.
    expect(expectStatus(await world.api.get(`/subscriptions/${subscription.id}`), 200).status).toBe('active');
    expect((await subscriptionState(world, subscription.id)).dunning).toEqual([]);

    // The bank returns it (R01): a failed attempt of the early invoice, whose dunning starts from the return. The
    // clock is moved only once the bank's settlement timer is set: set after the move, it would wait for time the
    // time-skipping server never gives it.
    const [debit] = expectStatus(await world.api.get(`/invoices/${early.id}/transactions`), 200).data;
    await settlementTimerSet(world.env.client, debit.gateway_reference);
    await world.env.sleep(BANK_DEBIT_SETTLEMENT_MS + 60_000);
    const entry = (await stateWhen(subscription.id, (state) => state.dunning.length === 1 && !state.busy, world))
      .dunning[0]!;
    expect(entry).toMatchObject({ invoiceId: early.id, attempts: 1 });
    expect((await subscriptionState(world, subscription.id)).held ?? []).toEqual([]);
    expect(await debits()).toEqual([[1, 'failed']]);
    await settled(world, subscription.id);
    expect(expectStatus(await world.api.get(`/subscriptions/${subscription.id}`), 200).status).toBe('past_due');
    const other = apiClient(world.app.baseUrl, (await createTestAccount(world.app.prisma, { name: 'Other' })).apiKey);
    expect((await other.get(`/invoices/${early.id}`)).status).toBe(404);

    // A day after the return: the retry, under the early invoice's own key, is a new debit held again.
    await advanceTo(world, subscription.id, entry.failedAt + DAY_MS + 1000);
    expect(await debits()).toEqual([
      [2, 'pending'],
      [1, 'failed'],
    ]);
    expect((await subscriptionState(world, subscription.id)).held).toEqual([
      expect.objectContaining({ invoiceId: early.id, attempt: 2 }),
    ]);
  }, 240_000);
});
