import { apiClient, createTestAccount, startWorkerApp, type ApiClient, type WorkerApp } from '../support/harness';
import { addPaymentMethod, cardBody, CARDS } from '../support/payments';
import { expectStatus, recurringPrice } from '../support/subscriptions';

// The customer's credit balance used by subscription renewals, on a test clock: the subscription's
// workflow bills each period on the clock's time (docs/decisions.md §22). Real Temporal dev server,
// real database, through HTTP.

const seconds = (isoDate: string) => Date.parse(isoDate) / 1000;

let stack: WorkerApp;
let api: ApiClient;
let other: ApiClient;

beforeAll(async () => {
  stack = await startWorkerApp('credit-renewal');
  api = stack.api;
  other = apiClient(stack.app.baseUrl, (await createTestAccount(stack.app.prisma, { name: 'Other' })).apiKey);
}, 60_000);

afterAll(() => stack?.close());

async function advance(clockId: string, frozenTime: number) {
  expectStatus(await api.post(`/test-helpers/test-clocks/${clockId}/advance`, { frozen_time: frozenTime }), 202);
  const deadline = Date.now() + 60_000;
  for (;;) {
    const clock = expectStatus(await api.get(`/test-helpers/test-clocks/${clockId}`), 200);
    if (clock.status === 'ready') return clock;
    if (Date.now() > deadline) throw new Error(`clock ${clockId} still advancing`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function invoicesOf(subscriptionId: string) {
  const page = expectStatus(await api.get(`/invoices?subscription=${subscriptionId}&take=100`), 200);
  return (page.data as any[]).sort((a, b) => a.period_start - b.period_start);
}

it('renewals use the credit balance before the card: part of a period, then a whole one without a charge', async () => {
  const anchor = seconds('2025-03-10T12:00:00Z');
  const clock = expectStatus(await api.post('/test-helpers/test-clocks', { frozen_time: anchor }), 201);
  const customer = expectStatus(await api.post('/customers', { name: 'Credited', test_clock: clock.id }), 201);
  const method = await addPaymentMethod(api, customer.id, cardBody(CARDS.succeeds));
  const price = await recurringPrice(api, { unitAmount: 2000 });
  const subscription = expectStatus(
    await api.post('/subscriptions', {
      customer: customer.id,
      items: [{ price, quantity: 1 }],
      trial_days: 0,
      start_date: anchor,
      default_payment_method: method.id,
    }),
    201,
  );
  const [first] = await invoicesOf(subscription.id);
  expect(first).toMatchObject({ status: 'paid', amount_paid: 2000, applied_balance: 0 });

  // 1500 of the first period credited to the balance: the April renewal charges 500.
  expectStatus(
    await api.post('/credit-notes', {
      invoice: first.id,
      amount: 1500,
      reason: 'order_change',
      refund_to: 'customer_balance',
    }),
    201,
  );
  expect((await other.get(`/customers/${customer.id}/balance-transactions`)).status).toBe(404);
  await advance(clock.id, seconds('2025-04-10T13:00:00Z'));
  const april = (await invoicesOf(subscription.id))[1];
  expect(april).toMatchObject({
    status: 'paid',
    total: 2000,
    applied_balance: 1500,
    amount_due: 500,
    amount_paid: 500,
    period_start: seconds('2025-04-10T12:00:00Z'),
  });
  expect(expectStatus(await api.get(`/customers/${customer.id}`), 200).balance).toBe(0);

  // The whole April invoice credited back: May is paid by the balance alone, nothing charged.
  expectStatus(
    await api.post('/credit-notes', {
      invoice: april.id,
      amount: 2000,
      reason: 'product_unsatisfactory',
      refund_to: 'customer_balance',
    }),
    201,
  );
  expect(expectStatus(await api.get(`/customers/${customer.id}`), 200).balance).toBe(-2000);
  await advance(clock.id, seconds('2025-05-10T13:00:00Z'));
  const may = (await invoicesOf(subscription.id))[2];
  expect(may).toMatchObject({ status: 'paid', total: 2000, applied_balance: 2000, amount_due: 0, amount_paid: 0 });
  const mayPayments = expectStatus(await api.get(`/invoices/${may.id}/transactions`), 200).data;
  expect(mayPayments.map((txn: any) => [txn.type, txn.status, txn.amount])).toEqual([['payment', 'succeeded', 0]]);
  expect(expectStatus(await api.get(`/subscriptions/${subscription.id}`), 200).status).toBe('active');

  const history = expectStatus(await api.get(`/customers/${customer.id}/balance-transactions`), 200).data;
  expect(history.map((entry: any) => [entry.type, entry.amount, entry.ending_balance, entry.invoice])).toEqual([
    ['applied_to_invoice', 2000, 0, may.id],
    ['credit_note', -2000, -2000, april.id],
    ['applied_to_invoice', 1500, 0, april.id],
    ['credit_note', -1500, -1500, first.id],
  ]);
  // Dated by the clock, as everything the clock's customer owns.
  expect(history[0].created).toBe(seconds('2025-05-10T12:00:00Z'));

  // A subscription created while the customer has credit: its first invoice, charged by the API, uses it.
  const may2 = (await invoicesOf(subscription.id))[2];
  expectStatus(
    await api.post('/credit-notes', {
      invoice: may2.id,
      amount: 1200,
      reason: 'duplicate',
      refund_to: 'customer_balance',
    }),
    201,
  );
  const addOn = await recurringPrice(api, { unitAmount: 2500 });
  const second = expectStatus(
    await api.post('/subscriptions', {
      customer: customer.id,
      items: [{ price: addOn, quantity: 1 }],
      trial_days: 0,
      start_date: seconds('2025-05-10T13:00:00Z'),
      default_payment_method: method.id,
    }),
    201,
  );
  const [firstOfSecond] = await invoicesOf(second.id);
  expect(firstOfSecond).toMatchObject({ status: 'paid', total: 2500, applied_balance: 1200, amount_paid: 1300 });
  expect(expectStatus(await api.get(`/customers/${customer.id}`), 200).balance).toBe(0);
}, 120_000);
