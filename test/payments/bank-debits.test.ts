import { apiClient, createTestAccount, eventsOf, expectStatus, type ApiClient } from '../support/harness';
import {
  addPaymentMethod,
  bankBody,
  BANK_ACCOUNTS,
  CARDS,
  createCustomer,
  gatewayCharges,
  settlementTimerSet,
  simpleInvoice,
} from '../support/payments';
import { waitUntil } from '../support/webhooks';
import {
  createSubscription,
  DAY_MS,
  recordHistories,
  recurringPrice,
  settled,
  startSubscriptionWorld,
  subscriptionState,
  unix,
  type SubscriptionWorld,
} from '../support/subscriptions';
import { Connection, type Client } from '@temporalio/client';
import { BANK_DEBIT_SETTLEMENT_MS, bankDebitSettlementId } from '../../workflows/bank-debit-settlement';
import { paymentReconciliation } from '../../workflows/payment-reconciliation';
import { temporalClient } from '../../src/temporal/client';
import { freePort } from '../support/ports';
import { startTestApp } from '../support/harness';
import { registeredGateways } from '../../src/gateway-registrations';
import { ledgerRegistry } from '../../src/transactions/ledger-metrics';
import { EXPIRY, hostedPath, pageForm, pageText, postForm } from '../hosted-pages/pages';
import { advanceClock } from '../support/clocks';

// The simulated gateway's US bank debits (docs/decisions.md §40): pending for days, then settled by the bank's
// durable timer (paid, or returned with an ACH return code), on a time-skipping Temporal environment, over HTTP.
let world: SubscriptionWorld;
let other: ApiClient;

beforeAll(async () => {
  world = await startSubscriptionWorld();
  other = apiClient(world.app.baseUrl, (await createTestAccount(world.app.prisma, { name: 'Other Co' })).apiKey);
});

afterAll(async () => {
  await world.close();
});

async function transactionsOf(invoiceId: string) {
  return expectStatus(await world.api.get(`/invoices/${invoiceId}/transactions`), 200, 'GET transactions').data;
}

async function invoiceEvents(invoiceId: string) {
  return (await eventsOf(world.app.prisma, world.accountId))
    .filter((event) => (event.data as { id?: string }).id === invoiceId)
    .map((event) => event.type);
}

/**
 * The bank answers: the environment's clock moved past the settlement delay once the pending debit's timer is set,
 * then the invoice read once it shows.
 */
async function bankAnswers(invoiceId: string, status: 'paid' | 'open', transactionStatus: string) {
  for (const entry of await transactionsOf(invoiceId)) {
    if (entry.status === 'pending') await settlementTimerSet(world.env.client, entry.gateway_reference);
  }
  await world.env.sleep(BANK_DEBIT_SETTLEMENT_MS + 60_000);
  return waitUntil(async () => {
    const [entry] = await transactionsOf(invoiceId);
    if (entry?.status !== transactionStatus) return null;
    const invoice = expectStatus(await world.api.get(`/invoices/${invoiceId}`), 200, 'GET invoice');
    return invoice.status === status ? invoice : null;
  });
}

async function subscribeByBank(accountNumber: string) {
  const customer = await createCustomer(world.api);
  const account = await addPaymentMethod(world.api, customer.id, bankBody(accountNumber));
  const subscription = await createSubscription(world.api, {
    customer: customer.id,
    items: [{ price: await recurringPrice(world.api, { unitAmount: 4500 }), quantity: 1 }],
    trial_days: 0,
    start_date: unix(await world.env.currentTimeMs()),
    default_payment_method: account.id,
  });
  await settled(world, subscription.id);
  const current = expectStatus(await world.api.get(`/subscriptions/${subscription.id}`), 200, 'GET subscription');
  return { subscription: current, invoiceId: current.latest_invoice as string };
}

describe('a bank debit of an invoice', () => {
  it('is pending for days (no second debit, another account sees nothing), then paid when the bank settles it', async () => {
    const customer = await createCustomer(world.api);
    await addPaymentMethod(world.api, customer.id, bankBody(BANK_ACCOUNTS.succeeds));
    const invoice = await simpleInvoice(world.api, customer.id, 1250);

    const paying = expectStatus(await world.api.put(`/invoices/${invoice.id}`), 200, 'PUT invoice');
    expect(paying).toMatchObject({ status: 'open', paid: false, attempt_count: 1, amount_paid: 0 });
    expect(await transactionsOf(invoice.id)).toEqual([
      expect.objectContaining({ status: 'pending', amount: 1250, gateway_reference: expect.stringMatching(/^ch_/) }),
    ]);
    const listed = expectStatus(await world.api.get('/transactions?status=pending'), 200, 'GET /transactions').data;
    expect(listed.map((entry: { invoice: string }) => entry.invoice)).toContain(invoice.id);

    // Paying again while the bank holds the debit asks about it and makes no debit beside it (§40).
    const debits = await gatewayCharges(world.app.prisma, world.accountId);
    const again = expectStatus(await world.api.put(`/invoices/${invoice.id}`), 200, 'PUT invoice again');
    expect(again).toMatchObject({ status: 'open', attempt_count: 1 });
    expect(await gatewayCharges(world.app.prisma, world.accountId)).toBe(debits);
    expect(await transactionsOf(invoice.id)).toHaveLength(1);
    // Voiding is refused while the money may still move.
    expect((await world.api.delete(`/invoices/${invoice.id}`)).status).toBe(409);

    expect((await other.get(`/invoices/${invoice.id}`)).status).toBe(404);
    expect((await other.get(`/invoices/${invoice.id}/transactions`)).status).toBe(404);
    const [debit] = await transactionsOf(invoice.id);
    expect((await other.get(`/transactions/${debit.id}`)).status).toBe(404);
    expect((await other.get('/transactions?status=pending')).body.data).toEqual([]);
    expect((await other.put(`/invoices/${invoice.id}`)).status).toBe(404);

    const paid = await bankAnswers(invoice.id, 'paid', 'succeeded');
    expect(paid).toMatchObject({ paid: true, amount_paid: 1250, attempt_count: 1 });
    // Told once that the bank holds it (however often it was asked about), then once paid.
    expect(await invoiceEvents(invoice.id)).toEqual([
      'invoice.created',
      'invoice.finalized',
      'invoice.payment_processing',
      'invoice.payment_succeeded',
    ]);
  });

  it('holds its hosted page: no pay form while the bank settles it, and a form sent before makes no second payment', async () => {
    const customer = await createCustomer(world.api);
    await addPaymentMethod(world.api, customer.id, bankBody(BANK_ACCOUNTS.succeeds));
    const draft = await simpleInvoice(world.api, customer.id, 1800);
    const open = expectStatus(await world.api.post(`/invoices/${draft.id}/finalize`), 200, 'finalize');
    const path = hostedPath(open);
    const staleForm = await pageForm(world.app.baseUrl, path);
    expect(expectStatus(await world.api.put(`/invoices/${draft.id}`), 200, 'PUT invoice').status).toBe('open');

    const page = await pageText(await fetch(`${world.app.baseUrl}${path}`));
    expect(page).toContain('Payment processing');
    expect(page).not.toContain(`action="${path}/pay"`);
    const debits = await gatewayCharges(world.app.prisma, world.accountId);
    const card = { name: 'Ada Lovelace', number: CARDS.succeeds, exp: EXPIRY, cvc: '123' };
    const sent = await postForm(world.app.baseUrl, `${path}/pay`, { ...staleForm, ...card });
    expect(sent.status).toBe(303);
    expect(await gatewayCharges(world.app.prisma, world.accountId)).toBe(debits);
    expect(expectStatus(await world.api.get(`/invoices/${draft.id}`), 200, 'GET').status).toBe('open');
    expect(await pageText(await fetch(`${world.app.baseUrl}${sent.headers.get('location')!}`))).toContain(
      'Payment processing',
    );
    expect(await transactionsOf(draft.id)).toHaveLength(1);
  });

  it.each([
    ['bank_return_R01', BANK_ACCOUNTS.insufficientFunds],
    ['bank_return_R02', BANK_ACCOUNTS.accountClosed],
  ])('is returned (%s) days later: the invoice stays open with invoice.payment_failed', async (code, number) => {
    const customer = await createCustomer(world.api);
    await addPaymentMethod(world.api, customer.id, bankBody(number));
    const invoice = await simpleInvoice(world.api, customer.id, 700);
    expect(expectStatus(await world.api.put(`/invoices/${invoice.id}`), 200, 'PUT invoice').status).toBe('open');
    expect(await invoiceEvents(invoice.id)).toEqual([
      'invoice.created',
      'invoice.finalized',
      'invoice.payment_processing',
    ]);

    const open = await bankAnswers(invoice.id, 'open', 'failed');
    expect(open).toMatchObject({ paid: false, attempt_count: 1, amount_remaining: 700 });
    expect(await transactionsOf(invoice.id)).toEqual([
      expect.objectContaining({
        status: 'failed',
        failure_code: code,
        failure_message: expect.stringContaining(code.slice(-3)),
      }),
    ]);
    expect(await invoiceEvents(invoice.id)).toEqual([
      'invoice.created',
      'invoice.finalized',
      'invoice.payment_processing',
      'invoice.payment_failed',
    ]);
    // Counted under its own code, not `other` (docs/operations.md, "Money").
    expect(await ledgerRegistry.getSingleMetricAsString('billing_charges_total')).toContain(`failure_code="${code}"`);
  });
});

describe("the bank's timer", () => {
  it('a debit made while Temporal cannot be reached is answered pending; asked about later, its timer starts and settles it', async () => {
    const customer = await createCustomer(world.api);
    const account = await addPaymentMethod(world.api, customer.id, bankBody(BANK_ACCOUNTS.succeeds));
    const unreachable = {
      withDeadline: (_deadline: number, call: () => Promise<unknown>) => call(),
      workflow: { start: () => Promise.reject(new Error('14 UNAVAILABLE: connection refused')) },
    } as unknown as Client;
    const request = {
      amount: 990,
      currency: 'usd',
      paymentMethod: { id: account.id, accountId: world.accountId, type: 'us_bank_account', customerId: customer.id },
      idempotencyKey: `bank-timer-${account.id}`,
    };
    const cut = registeredGateways(world.app.prisma, { client: unreachable, taskQueue: world.taskQueue });
    const answered = await (await cut.gatewayFor(world.accountId)).charge(request);
    expect(answered).toEqual({ status: 'pending', chargeId: expect.stringMatching(/^ch_/) });

    // The reconciliation's question, on a process that reaches Temporal, starts the timer the charge could not.
    const reached = await registeredGateways(world.app.prisma, {
      client: world.env.client,
      taskQueue: world.taskQueue,
    }).gatewayFor(world.accountId);
    expect(await reached.retrieveCharge({ idempotencyKey: request.idempotencyKey })).toEqual(answered);
    await settlementTimerSet(world.env.client, answered.status === 'pending' ? answered.chargeId : '');
    await world.env.sleep(BANK_DEBIT_SETTLEMENT_MS + 60_000);
    const settled = await waitUntil(async () => {
      const result = await reached.retrieveCharge({ idempotencyKey: request.idempotencyKey });
      return result?.status === 'succeeded' ? result : null;
    });
    expect(settled).toEqual({ status: 'succeeded', chargeId: answered.status === 'pending' ? answered.chargeId : '' });
  });
  it('a charge request made while Temporal refuses connections answers at once, pending; the reconciliation starts its timer', async () => {
    // The same database, with a Temporal client whose server refuses every connection.
    const down = await startTestApp({
      temporal: temporalClient(Connection.lazy({ address: `127.0.0.1:${await freePort()}` })),
      taskQueue: world.taskQueue,
    });
    try {
      const { apiKey } = await createTestAccount(world.app.prisma, { name: 'Bank debits, Temporal down' });
      const up = apiClient(world.app.baseUrl, apiKey);
      const downApi = apiClient(down.baseUrl, apiKey);
      const customer = await createCustomer(up);
      await addPaymentMethod(up, customer.id, bankBody(BANK_ACCOUNTS.succeeds));
      const invoice = await simpleInvoice(up, customer.id, 1450);
      const debitsOf = async () =>
        expectStatus(await up.get(`/invoices/${invoice.id}/transactions`), 200, 'GET transactions').data;

      const started = Date.now();
      const paying = expectStatus(await downApi.put(`/invoices/${invoice.id}`), 200, 'PUT invoice, Temporal down');
      // Each call to the unreachable Temporal gives up at its 2 s deadline (docs/decisions.md §40); without one the client
      // retries for some 20 s. The bound sits between the two, wide enough for a busy machine.
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(paying).toMatchObject({ status: 'open', paid: false, attempt_count: 1 });
      const [debit] = await debitsOf();
      expect(debit).toMatchObject({ status: 'pending', gateway_reference: expect.stringMatching(/^ch_/) });
      expect((await other.get(`/invoices/${invoice.id}`)).status).toBe(404);

      // A reconciliation pass on the worker, which reaches Temporal, asks about the debit and starts its timer.
      await world.env.client.workflow.execute(paymentReconciliation, {
        taskQueue: world.taskQueue,
        workflowId: `payment-reconciliation-test-${crypto.randomUUID()}`,
        args: [{ pendingOlderThanMs: 0 }],
      });
      const timer = await world.env.client.workflow
        .getHandle(bankDebitSettlementId(debit.gateway_reference))
        .describe();
      expect(timer.status.name).toBe('RUNNING');
      await settlementTimerSet(world.env.client, debit.gateway_reference);
      await world.env.sleep(BANK_DEBIT_SETTLEMENT_MS + 60_000);
      const paid = await waitUntil(async () => {
        const read = expectStatus(await up.get(`/invoices/${invoice.id}`), 200, 'GET invoice');
        return read.status === 'paid' ? read : null;
      });
      expect(paid).toMatchObject({ amount_paid: 1450, attempt_count: 1 });
      expect(await debitsOf()).toEqual([expect.objectContaining({ status: 'succeeded' })]);
    } finally {
      await down.close();
    }
  });
});

describe('a subscription paying by bank account', () => {
  it('waits for its debit: neither past_due nor retried while pending, active and paid once the bank settles it', async () => {
    const { subscription, invoiceId } = await subscribeByBank(BANK_ACCOUNTS.succeeds);
    expect(subscription.status).toBe('active');
    expect((await transactionsOf(invoiceId)).map((entry: { status: string }) => entry.status)).toEqual(['pending']);
    const waiting = await subscriptionState(world, subscription.id);
    expect(waiting.dunning).toEqual([]);
    expect(waiting.held).toEqual([expect.objectContaining({ invoiceId, attempt: 1 })]);

    await bankAnswers(invoiceId, 'paid', 'succeeded');
    await waitUntil(async () => ((await subscriptionState(world, subscription.id)).held ?? []).length === 0);
    const after = await settled(world, subscription.id);
    expect(after?.dunning).toEqual([]);
    expect(expectStatus(await world.api.get(`/subscriptions/${subscription.id}`), 200, 'GET').status).toBe('active');
    expect(await transactionsOf(invoiceId)).toHaveLength(1);
    await recordHistories(world, subscription.id, 'bank-debit-held-paid');
  });

  it('a returned debit (R01) counts as a failed attempt: past_due, dunning on the schedule from the return, then retried', async () => {
    expectStatus(await world.api.put('/settings/dunning', { retry_days: [3], outcome: 'keep_active' }), 200, 'dunning');
    const { subscription, invoiceId } = await subscribeByBank(BANK_ACCOUNTS.insufficientFunds);
    expect(subscription.status).toBe('active');
    expect(await invoiceEvents(invoiceId)).not.toContain('invoice.payment_failed');

    await bankAnswers(invoiceId, 'open', 'failed');
    const returned = await waitUntil(async () => {
      const state = await subscriptionState(world, subscription.id);
      return state.dunning.length === 1 && !state.busy ? state : null;
    });
    expect(returned.dunning[0]).toMatchObject({ invoiceId, attempts: 1 });
    expect(returned.held ?? []).toEqual([]);
    await settled(world, subscription.id);
    expect(expectStatus(await world.api.get(`/subscriptions/${subscription.id}`), 200, 'GET').status).toBe('past_due');
    expect((await invoiceEvents(invoiceId)).filter((type) => type === 'invoice.payment_failed')).toHaveLength(1);

    // The retry, three days after the return, is a new debit of the same account: pending again, not a second failure.
    await world.env.sleep(3 * DAY_MS + 60_000);
    await waitUntil(async () => ((await subscriptionState(world, subscription.id)).held ?? []).length === 1);
    const attempts = await transactionsOf(invoiceId);
    expect(attempts.map((entry: { attempt: number; status: string }) => [entry.attempt, entry.status])).toEqual([
      [2, 'pending'],
      [1, 'failed'],
    ]);
    await recordHistories(world, subscription.id, 'bank-debit-held-returned');
  });
});

describe('a bank debit of a customer on a test clock', () => {
  const CLOCK_START = 1706695200; // 2024-01-31T10:00:00Z
  const DAY = DAY_MS / 1000;

  async function bankCustomerOnClock(accountNumber: string) {
    const clock = expectStatus(
      await world.api.post('/test-helpers/test-clocks', { frozen_time: CLOCK_START }),
      201,
      'clock',
    );
    const customer = expectStatus(
      await world.api.post('/customers', { name: 'Bank on a clock', test_clock: clock.id }),
      201,
      'POST /customers',
    );
    const account = await addPaymentMethod(world.api, customer.id, bankBody(accountNumber));
    return { clock, customer, account };
  }

  it("stays processing for three days of the clock, then is paid when the clock passes four, dated at the clock's time", async () => {
    const { clock, customer } = await bankCustomerOnClock(BANK_ACCOUNTS.succeeds);
    const invoice = await simpleInvoice(world.api, customer.id, 1250);
    expectStatus(await world.api.put(`/invoices/${invoice.id}`), 200, 'PUT invoice');
    expect(await transactionsOf(invoice.id)).toEqual([expect.objectContaining({ status: 'pending' })]);

    await advanceClock(world.api, clock.id, CLOCK_START + 3 * DAY);
    expect(expectStatus(await world.api.get(`/invoices/${invoice.id}`), 200, 'GET')).toMatchObject({ status: 'open' });
    expect(await transactionsOf(invoice.id)).toEqual([expect.objectContaining({ status: 'pending' })]);

    // Ready means settled: the advance waited for the debit's settlement, made at the clock's debit time + 4 days.
    await advanceClock(world.api, clock.id, CLOCK_START + 5 * DAY);
    const paid = expectStatus(await world.api.get(`/invoices/${invoice.id}`), 200, 'GET');
    expect(paid).toMatchObject({ status: 'paid', amount_paid: 1250, attempt_count: 1 });
    expect(paid.status_transitions.paid_at).toBe(CLOCK_START + 4 * DAY);
    expect(await transactionsOf(invoice.id)).toEqual([expect.objectContaining({ status: 'succeeded' })]);
    const [succeeded] = await eventsOf(world.app.prisma, world.accountId, 'invoice.payment_succeeded').then((events) =>
      events.filter((event) => (event.data as { id?: string }).id === invoice.id),
    );
    expect(succeeded?.createdAt.getTime()).toBe((CLOCK_START + 4 * DAY) * 1000);

    // Another account neither sees nor moves the clock.
    expect((await other.get(`/test-helpers/test-clocks/${clock.id}`)).status).toBe(404);
    expect(
      (await other.post(`/test-helpers/test-clocks/${clock.id}/advance`, { frozen_time: CLOCK_START + 6 * DAY }))
        .status,
    ).toBe(404);
    expect((await other.get(`/invoices/${invoice.id}`)).status).toBe(404);
  });

  // The clock advanced at once after the creation: the settlement may reach the workflow before the answer of the
  // charge it settles (docs/decisions.md §40, "On a test clock"); the workflow keeps the notice and uses it then.
  it.each([
    ['returned (R01): dunning starts', BANK_ACCOUNTS.insufficientFunds, 'past_due'],
    ['paid: collection ends', BANK_ACCOUNTS.succeeds, 'active'],
  ])('a debit settled by an advance right after the creation is not held forever: %s', async (_, number, status) => {
    expectStatus(await world.api.put('/settings/dunning', { retry_days: [3], outcome: 'keep_active' }), 200, 'dunning');
    const { clock, customer, account } = await bankCustomerOnClock(number);
    const created = await createSubscription(world.api, {
      customer: customer.id,
      items: [{ price: await recurringPrice(world.api, { unitAmount: 3900 }), quantity: 1 }],
      trial_days: 0,
      start_date: CLOCK_START,
      default_payment_method: account.id,
    });
    await advanceClock(world.api, clock.id, CLOCK_START + 5 * DAY);

    const invoiceId = expectStatus(await world.api.get(`/subscriptions/${created.id}`), 200, 'GET').latest_invoice;
    const firstAttempt = async () =>
      (await transactionsOf(invoiceId)).find((entry: { attempt: number }) => entry.attempt === 1);
    if (status === 'past_due') {
      expect(await firstAttempt()).toMatchObject({ status: 'failed', failure_code: 'bank_return_R01' });
      const dunned = await waitUntil(async () => {
        const read = await subscriptionState(world, created.id);
        return read.dunning.length === 1 && !read.busy ? read : null;
      });
      expect(dunned.dunning[0]).toMatchObject({ invoiceId });
    } else {
      expect(await transactionsOf(invoiceId)).toEqual([expect.objectContaining({ attempt: 1, status: 'succeeded' })]);
      const done = await waitUntil(async () => {
        const read = await subscriptionState(world, created.id);
        return (read.held ?? []).length === 0 && !read.busy ? read : null;
      });
      expect(done.dunning).toEqual([]);
    }
    await waitUntil(
      async () => expectStatus(await world.api.get(`/subscriptions/${created.id}`), 200, 'GET').status === status,
    );
    expect((await other.get(`/subscriptions/${created.id}`)).status).toBe(404);
  });

  it('a debit pending when its clock is deleted is answered by its bank at once, dated when the bank would have', async () => {
    const { clock, customer } = await bankCustomerOnClock(BANK_ACCOUNTS.succeeds);
    const invoice = await simpleInvoice(world.api, customer.id, 1650);
    expectStatus(await world.api.put(`/invoices/${invoice.id}`), 200, 'PUT invoice');
    expect(await transactionsOf(invoice.id)).toEqual([expect.objectContaining({ status: 'pending' })]);

    expect((await other.delete(`/test-helpers/test-clocks/${clock.id}`)).status).toBe(404);
    expect(expectStatus(await world.api.delete(`/test-helpers/test-clocks/${clock.id}`), 200, 'DELETE clock')).toEqual({
      id: clock.id,
      object: 'test_clock',
      deleted: true,
    });
    const paid = await waitUntil(async () => {
      const read = expectStatus(await world.api.get(`/invoices/${invoice.id}`), 200, 'GET invoice');
      return read.status === 'paid' ? read : null;
    });
    expect(paid).toMatchObject({ amount_paid: 1650, attempt_count: 1 });
    expect(paid.status_transitions.paid_at).toBe(CLOCK_START + 4 * DAY);
    expect(await transactionsOf(invoice.id)).toEqual([expect.objectContaining({ status: 'succeeded' })]);
    expect((await other.get(`/invoices/${invoice.id}`)).status).toBe(404);
  });

  it("a subscription's returned debit (R01) is returned at the clock's time and its dunning goes on from there", async () => {
    expectStatus(await world.api.put('/settings/dunning', { retry_days: [3], outcome: 'keep_active' }), 200, 'dunning');
    const { clock, customer, account } = await bankCustomerOnClock(BANK_ACCOUNTS.insufficientFunds);
    const created = await createSubscription(world.api, {
      customer: customer.id,
      items: [{ price: await recurringPrice(world.api, { unitAmount: 4500 }), quantity: 1 }],
      trial_days: 0,
      start_date: CLOCK_START,
      default_payment_method: account.id,
    });
    // On a clock, `settled` (the environment's time) does not apply: the first invoice's debit shows it is done.
    const invoiceId = await waitUntil(async () => {
      const subscription = expectStatus(await world.api.get(`/subscriptions/${created.id}`), 200, 'GET');
      const latest = subscription.latest_invoice as string | null;
      return latest && (await transactionsOf(latest)).length === 1 ? latest : null;
    });
    expect(await transactionsOf(invoiceId)).toEqual([expect.objectContaining({ status: 'pending' })]);
    // The workflow keeps the debit as held before the clock moves: a settlement it does not know of yet is not its own.
    await waitUntil(async () => ((await subscriptionState(world, created.id)).held ?? []).length === 1);

    await advanceClock(world.api, clock.id, CLOCK_START + 5 * DAY);
    expect(await transactionsOf(invoiceId)).toEqual([
      expect.objectContaining({ status: 'failed', failure_code: 'bank_return_R01' }),
    ]);
    const [failed] = (await eventsOf(world.app.prisma, world.accountId, 'invoice.payment_failed')).filter(
      (event) => (event.data as { id?: string }).id === invoiceId,
    );
    expect(failed?.createdAt.getTime()).toBe((CLOCK_START + 4 * DAY) * 1000);
    const returned = await waitUntil(async () => {
      const state = await subscriptionState(world, created.id);
      return state.dunning.length === 1 && !state.busy ? state : null;
    });
    expect(returned.dunning[0]).toMatchObject({ invoiceId, attempts: 1 });
    await waitUntil(
      async () => expectStatus(await world.api.get(`/subscriptions/${created.id}`), 200, 'GET').status === 'past_due',
    );

    // The retry falls due on the clock three days after the return: a new debit, pending again.
    await advanceClock(world.api, clock.id, CLOCK_START + 8 * DAY);
    const attempts = await transactionsOf(invoiceId);
    expect(attempts.map((entry: { attempt: number; status: string }) => [entry.attempt, entry.status])).toEqual([
      [2, 'pending'],
      [1, 'failed'],
    ]);
  });
});
