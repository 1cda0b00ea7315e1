import { apiClient, createTestAccount, startWorkerApp, type ApiClient, type WorkerApp } from '../support/harness';
import { advanceClock, billedShape, customerOnClock, subscribeOnClock, subscriptionInvoices } from '../support/clocks';
import { expectStatus, recurringPrice } from '../support/subscriptions';

// A year of a subscription on a test clock (docs/api.md "Coupons and discounts", "Proration"): a coupon
// for three months, an upgrade and a downgrade prorated onto the next invoices, a credit note to the
// customer's balance; every invoice checked against amounts computed here, with the rules written out again.

const at = (iso: string) => Date.parse(iso) / 1000;

let stack: WorkerApp;
let api: ApiClient;
let other: ApiClient;

beforeAll(async () => {
  stack = await startWorkerApp('coupon-year');
  api = stack.api;
  other = apiClient(stack.app.baseUrl, (await createTestAccount(stack.app.prisma, { name: 'Other' })).apiKey);
}, 60_000);

afterAll(() => stack?.close());

/** cents x left / period, rounded half to even (the proration rule), in integers. */
function share(cents: number, left: number, period: number): number {
  const numerator = BigInt(cents) * BigInt(left);
  const quotient = numerator / BigInt(period);
  const twice = (numerator % BigInt(period)) * 2n;
  const up = twice > BigInt(period) || (twice === BigInt(period) && quotient % 2n === 1n);
  return Number(quotient) + (up ? 1 : 0);
}

/** percent (in hundredths) of cents, half up (the discount rule). */
const percent = (cents: number, hundredths: number) => Math.floor((cents * hundredths * 2 + 10_000) / 20_000);

it('bills a year with a 3-month coupon, an upgrade, a downgrade and a credit note, invoice by invoice', async () => {
  const basic = await recurringPrice(api, { unitAmount: 2000 });
  const pro = await recurringPrice(api, { unitAmount: 5000 });
  const { clock, customer, method } = await customerOnClock(api, at('2026-01-01T00:00:00Z'));
  const subscription = await subscribeOnClock(
    api,
    { customer, method },
    [{ price: basic, quantity: 1 }],
    at('2026-01-01T00:00:00Z'),
  );
  const itemId = subscription.items.data[0].id;
  await advanceClock(api, clock.id, at('2026-02-10T08:00:00Z'));

  // Three months of 25% from Feb 10: the periods starting Mar 1, Apr 1 and May 1.
  const coupon = expectStatus(
    await api.post('/coupons', { name: 'Quarter off', percent_off: 25, duration: 'repeating', duration_in_months: 3 }),
    201,
  );
  expect((await other.patch(`/subscriptions/${subscription.id}`, { coupon: coupon.id })).status).toBe(404);
  const discounted = expectStatus(await api.patch(`/subscriptions/${subscription.id}`, { coupon: coupon.id }), 200);
  expect(discounted.discount).toMatchObject({ start: at('2026-02-10T08:00:00Z'), end: at('2026-05-10T08:00:00Z') });

  // Upgrade on Mar 16, prorated onto April's invoice.
  const upgradeAt = at('2026-03-16T09:17:23Z');
  await advanceClock(api, clock.id, upgradeAt);
  expectStatus(
    await api.patch(`/subscriptions/${subscription.id}`, {
      items: [{ id: itemId, price: pro }],
      proration_behavior: 'create_prorations',
    }),
    200,
  );
  const marchPeriod = at('2026-04-01T00:00:00Z') - at('2026-03-01T00:00:00Z');
  const upLeft = at('2026-04-01T00:00:00Z') - upgradeAt;
  const aprilSubtotal = 5000 - share(2000, upLeft, marchPeriod) + share(5000, upLeft, marchPeriod);
  const aprilPreview = expectStatus(await api.get(`/invoices/upcoming?subscription=${subscription.id}`), 200);

  await advanceClock(api, clock.id, at('2026-04-01T01:00:00Z'));
  const april = (await subscriptionInvoices(api, subscription.id))[3];
  expect(billedShape(april)).toEqual(billedShape(aprilPreview));

  await advanceClock(api, clock.id, at('2026-05-20T00:00:00Z'));
  // 1000 of May's paid invoice credited to the customer's balance: June uses it.
  const may = (await subscriptionInvoices(api, subscription.id))[4];
  expectStatus(
    await api.post('/credit-notes', {
      invoice: may.id,
      amount: 1000,
      reason: 'order_change',
      refund_to: 'customer_balance',
    }),
    201,
  );
  // More than the discounted invoice's total is left to credit: 400 naming amount.
  const over = await api.post('/credit-notes', {
    invoice: may.id,
    amount: 3750 - 1000 + 1,
    reason: 'order_change',
    refund_to: 'customer_balance',
  });
  expect(over.status).toBe(400);
  expect(over.body.error.param).toBe('amount');

  // Downgrade on Jul 15, prorated onto August's.
  const downgradeAt = at('2026-07-15T16:45:00Z');
  await advanceClock(api, clock.id, downgradeAt);
  expectStatus(
    await api.patch(`/subscriptions/${subscription.id}`, {
      items: [{ id: itemId, price: basic }],
      proration_behavior: 'create_prorations',
    }),
    200,
  );
  const julyPeriod = at('2026-08-01T00:00:00Z') - at('2026-07-01T00:00:00Z');
  const downLeft = at('2026-08-01T00:00:00Z') - downgradeAt;
  const augustSubtotal = 2000 - share(5000, downLeft, julyPeriod) + share(2000, downLeft, julyPeriod);

  // A clock advances at most two billing intervals at a time.
  for (const day of ['2026-08-01', '2026-10-01', '2026-12-01', '2027-01-01'])
    await advanceClock(api, clock.id, at(`${day}T01:00:00Z`));

  const invoices = await subscriptionInvoices(api, subscription.id);
  const expected = [
    { start: '2026-01-01', subtotal: 2000, discount: 0 },
    { start: '2026-02-01', subtotal: 2000, discount: 0 },
    { start: '2026-03-01', subtotal: 2000, discount: 500 },
    { start: '2026-04-01', subtotal: aprilSubtotal, discount: percent(aprilSubtotal, 2500) },
    { start: '2026-05-01', subtotal: 5000, discount: 1250 },
    { start: '2026-06-01', subtotal: 5000, discount: 0, balance: 1000 },
    { start: '2026-07-01', subtotal: 5000, discount: 0 },
    { start: '2026-08-01', subtotal: augustSubtotal, discount: 0 },
    ...['09', '10', '11', '12'].map((month) => ({ start: `2026-${month}-01`, subtotal: 2000, discount: 0 })),
    { start: '2027-01-01', subtotal: 2000, discount: 0 },
  ];
  expect(
    invoices.map((invoice) => ({
      start: new Date(invoice.period_start * 1000).toISOString().slice(0, 10),
      subtotal: invoice.subtotal,
      discount: invoice.total_discount_amounts.reduce((sum: number, each: any) => sum + each.amount, 0),
      ...(invoice.applied_balance ? { balance: invoice.applied_balance } : {}),
    })),
  ).toEqual(expected);
  for (const [index, invoice] of invoices.entries()) {
    const { subtotal, discount, balance = 0 } = expected[index]!;
    expect(invoice).toMatchObject({
      status: 'paid',
      tax: 0,
      total: subtotal - discount,
      amount_paid: subtotal - discount - balance,
    });
    // What was taken off, credited and collected never exceeds what the invoice billed before its discount.
    expect(
      discount + invoice.pre_payment_credit_notes_amount + invoice.applied_balance + invoice.amount_paid,
    ).toBeLessThanOrEqual(invoice.subtotal + invoice.tax);
    expect(invoice.lines.filter((line: any) => line.discount !== null)).toHaveLength(discount > 0 ? 1 : 0);
  }
  expect(invoices[3].lines.map((line: any) => line.proration)).toEqual([false, true, true, false]);
  expect(invoices[4].post_payment_credit_notes_amount).toBe(1000);
  expect(expectStatus(await api.get(`/customers/${customer.id}`), 200).balance).toBe(0);
}, 600_000);
