import fc from 'fast-check';
import { apiClient, createTestAccount, startWorkerApp, type ApiClient, type WorkerApp } from '../support/harness';
import { advanceClock, customerOnClock, subscribeOnClock, subscriptionInvoices } from '../support/clocks';
import { expectStatus, recordWorkflowHistories, recurringPrice } from '../support/subscriptions';
import { subscriptionWorkflowId } from '../../workflows/subscription-messages';

// What a prorated change or cancel gives back for unused time is capped at what the period's invoice
// still holds: collected, less what credit notes and refunds gave back, after discounts
// (docs/decisions.md §25, "What unused time gives back"). Through HTTP on test clocks over the suite's
// Temporal dev server; the fast-check property over random sequences is at the end.

const DAY_S = 86_400;
// 1 April 2026: a 30-day period, so 3 days in, 27/30 of it is unused.
const START = Date.UTC(2026, 3, 1, 8, 0, 0) / 1000;
const PERIOD_S = 30 * DAY_S;

let stack: WorkerApp;
let api: ApiClient;
let other: ApiClient;

beforeAll(async () => {
  stack = await startWorkerApp('credit-cap');
  api = stack.api;
  other = apiClient(stack.app.baseUrl, (await createTestAccount(stack.app.prisma, { name: 'Other' })).apiKey);
}, 60_000);

afterAll(() => stack?.close());

/** Half to even on the exact share of a period (docs/api.md "Proration"), with plain numbers. */
function unusedShare(cents: number, secondsLeft: number): number {
  const exact = (cents * secondsLeft) / PERIOD_S;
  const floor = Math.floor(exact);
  const diff = exact - floor;
  return diff > 0.5 || (diff === 0.5 && floor % 2 === 1) ? floor + 1 : floor;
}

/** A customer on a clock at START with a working card, subscribed to `price` (its first invoice paid). */
async function paidSubscription(unitAmount: number, extra: Record<string, unknown> = {}) {
  const owner = await customerOnClock(api, START);
  const price = await recurringPrice(api, { unitAmount });
  const subscription = await subscribeOnClock(api, owner, [{ price, quantity: 1 }], START, extra);
  const [first] = await subscriptionInvoices(api, subscription.id);
  return { ...owner, price, subscription, first };
}

const balanceOf = async (customerId: string) =>
  expectStatus(await api.get(`/customers/${customerId}`), 200, 'GET /customers/{id}').balance as number;

/**
 * Everything the customer was given back (credit in the balance now, card refunds, money settled
 * outside) and everything collected from the card, from the API's own lists.
 */
async function moneyOf(customerId: string) {
  const txns = expectStatus(await api.get(`/transactions?customer=${customerId}&take=100`), 200).data as any[];
  const sum = (type: string) =>
    txns.filter((txn) => txn.type === type && txn.status === 'succeeded').reduce((total, txn) => total + txn.amount, 0);
  return {
    collected: sum('payment'),
    givenBack: -(await balanceOf(customerId)) - sum('refund') - sum('adjustment'),
  };
}

const credit = (body: Record<string, unknown>) => api.post('/credit-notes', { reason: 'order_change', ...body });

describe('DELETE /subscriptions/{id}?prorate=true', () => {
  it("after a credit note gave the period's invoice back in full, a cancel 3 days later gives back nothing more", async () => {
    const { customer, clock, subscription, first } = await paidSubscription(2165);
    expect(first).toMatchObject({ status: 'paid', total: 2165, amount_paid: 2165 });
    expectStatus(await credit({ invoice: first.id, amount: 2165, refund_to: 'customer_balance' }), 201);
    expect(await balanceOf(customer.id)).toBe(-2165);

    await advanceClock(api, clock.id, START + 3 * DAY_S);
    const canceled = expectStatus(await api.delete(`/subscriptions/${subscription.id}?prorate=true`), 200);
    expect(canceled.status).toBe('canceled');
    // The unused time (1948 cents) is not credited again: no invoice of a credit, the balance as it was.
    const invoices = await subscriptionInvoices(api, subscription.id);
    expect(invoices.map((invoice) => invoice.id)).toEqual([first.id]);
    expect(await balanceOf(customer.id)).toBe(-2165);
    expect(await moneyOf(customer.id)).toEqual({ collected: 2165, givenBack: 2165 });
  });

  it('after a partial card refund, the cancel credits the unused time up to what the invoice still holds', async () => {
    const { customer, clock, subscription, first } = await paidSubscription(2165);
    expectStatus(await credit({ invoice: first.id, amount: 1000, refund_to: 'card' }), 201);
    await advanceClock(api, clock.id, START + 3 * DAY_S);
    expectStatus(await api.delete(`/subscriptions/${subscription.id}?prorate=true`), 200);
    const final = (await subscriptionInvoices(api, subscription.id)).at(-1);
    expect(unusedShare(2165, 27 * DAY_S)).toBe(1948);
    // 1948 of unused time, but the invoice holds only 1165 now: the credit line is 1165.
    expect(final.lines.map((line: any) => [line.amount, line.proration])).toEqual([[-1165, true]]);
    expect(final).toMatchObject({ total: -1165, applied_balance: -1165, status: 'paid' });
    expect(await balanceOf(customer.id)).toBe(-1165);
    expect(await moneyOf(customer.id)).toEqual({ collected: 2165, givenBack: 2165 });
    // Its history, with the cap's local activity, for the replay test.
    await recordWorkflowHistories(stack.app.temporal, subscriptionWorkflowId(subscription.id), 'unused-time-cap');
  });

  it('with a discount, a cancel right after the start gives back at most what was paid, not the list price', async () => {
    const coupon = expectStatus(await api.post('/coupons', { percent_off: 15, duration: 'forever' }), 201);
    const { customer, clock, subscription, first } = await paidSubscription(2165, { coupon: coupon.id });
    // 2165 less 15% (324.75, half up: 325).
    expect(first).toMatchObject({ status: 'paid', total: 1840, amount_paid: 1840 });
    await advanceClock(api, clock.id, START + 3600);
    expectStatus(await api.delete(`/subscriptions/${subscription.id}?prorate=true`), 200);
    const final = (await subscriptionInvoices(api, subscription.id)).at(-1);
    expect(unusedShare(2165, PERIOD_S - 3600)).toBeGreaterThan(1840);
    expect(final.total).toBe(-1840);
    expect(await balanceOf(customer.id)).toBe(-1840);
    expect(await moneyOf(customer.id)).toEqual({ collected: 1840, givenBack: 1840 });
  });

  it('a period whose invoice is still open gives no credit: the invoice still owes the period', async () => {
    const owner = await customerOnClock(api, START);
    const price = await recurringPrice(api, { unitAmount: 2165 });
    const subscription = await subscribeOnClock(api, owner, [{ price, quantity: 1 }], START, {
      collection_method: 'send_invoice',
    });
    await advanceClock(api, owner.clock.id, START + 3 * DAY_S);
    expectStatus(await api.delete(`/subscriptions/${subscription.id}?prorate=true`), 200);
    const invoices = await subscriptionInvoices(api, subscription.id);
    expect(invoices).toHaveLength(1);
    expect(invoices[0]).toMatchObject({ status: 'open', amount_due: 2165 });
    expect(await balanceOf(owner.customer.id)).toBe(0);
  });

  it('credits in full what was paid for a period the invoice billed beside an earlier credit (no cap then)', async () => {
    // A downgrade waiting for the renewal takes that invoice below zero; the period it bills was still
    // paid for (by the credit), so a cancel in it credits its unused time in full.
    const { customer, clock, subscription } = await paidSubscription(12_000);
    const cheap = await recurringPrice(api, { unitAmount: 1500 });
    await advanceClock(api, clock.id, START + 3 * DAY_S);
    expectStatus(
      await api.patch(`/subscriptions/${subscription.id}`, {
        items: [{ id: subscription.items.data[0].id, price: cheap }],
        proration_behavior: 'create_prorations',
      }),
      200,
    );
    const periodEnd = subscription.current_period_end;
    await advanceClock(api, clock.id, periodEnd + 60);
    const renewal = (await subscriptionInvoices(api, subscription.id)).at(-1);
    expect(renewal).toMatchObject({ status: 'paid', period_start: periodEnd });
    expect(renewal.total).toBeLessThan(0);
    const before = await balanceOf(customer.id);
    const cancelAt = periodEnd + 2 * DAY_S;
    await advanceClock(api, clock.id, cancelAt);
    expectStatus(await api.delete(`/subscriptions/${subscription.id}?prorate=true`), 200);
    const ended = expectStatus(await api.get(`/subscriptions/${subscription.id}`), 200);
    const final = (await subscriptionInvoices(api, subscription.id)).at(-1);
    const periodSeconds = renewal.period_end - renewal.period_start;
    const exact = (1500 * (renewal.period_end - cancelAt)) / periodSeconds;
    expect(ended.latest_invoice).toBe(final.id);
    expect(final.lines).toHaveLength(1);
    expect(Math.abs(-final.lines[0].amount - exact)).toBeLessThanOrEqual(0.5);
    expect(await balanceOf(customer.id)).toBe(before + final.total);
  });

  it('a negative final invoice refunded to the card (the balance holds another currency) ends paid', async () => {
    const { customer, clock, subscription, first } = await paidSubscription(3000);
    const euros = expectStatus(
      await api.post('/invoices', {
        customer: customer.id,
        currency: 'EUR',
        lines: [{ description: 'Setup', amount: 500 }],
      }),
      201,
    );
    expectStatus(await api.put(`/invoices/${euros.id}`), 200, 'pay the EUR invoice');
    expectStatus(await credit({ invoice: euros.id, amount: 100, refund_to: 'customer_balance' }), 201);
    await advanceClock(api, clock.id, START + 10 * DAY_S);
    expectStatus(await api.delete(`/subscriptions/${subscription.id}?prorate=true`), 200);
    const final = (await subscriptionInvoices(api, subscription.id)).at(-1);
    expect(final.total).toBe(-unusedShare(3000, 20 * DAY_S));
    expect(final).toMatchObject({ status: 'paid', amount_due: 0, applied_balance: 0 });
    expect(expectStatus(await api.get(`/invoices/${first.id}`), 200).amount_refunded).toBe(-final.total);
    // Another account reads neither invoice.
    expect((await other.get(`/invoices/${final.id}`)).status).toBe(404);
  });
});

describe('downgrades', () => {
  /** A subscription of 2165 whose first invoice `note` credits, moved to a price of 500 three days in. */
  async function downgradedAfterCredit(note: Record<string, unknown>, behavior: string) {
    const paid = await paidSubscription(2165);
    const cheap = await recurringPrice(api, { unitAmount: 500 });
    expectStatus(await credit({ invoice: paid.first.id, ...note }), 201);
    await advanceClock(api, paid.clock.id, START + 3 * DAY_S);
    expectStatus(
      await api.patch(`/subscriptions/${paid.subscription.id}`, {
        items: [{ id: paid.subscription.items.data[0].id, price: cheap }],
        proration_behavior: behavior,
      }),
      200,
    );
    return paid;
  }

  it('always_invoice after the invoice was credited back in full charges the new price and credits nothing', async () => {
    const note = { amount: 2165, refund_to: 'customer_balance' };
    const { customer, subscription } = await downgradedAfterCredit(note, 'always_invoice');
    const now = (await subscriptionInvoices(api, subscription.id)).find(
      (invoice) => invoice.billing_reason === 'subscription_update',
    );
    // Only the charge for the rest of the period (the balance pays it); no credit of the 2165 again.
    expect(now.lines.map((line: any) => line.amount)).toEqual([unusedShare(500, 27 * DAY_S)]);
    expect(now).toMatchObject({ status: 'paid', applied_balance: 450, amount_paid: 0 });
    expect(await balanceOf(customer.id)).toBe(-2165 + 450);
    expect(await moneyOf(customer.id)).toEqual({ collected: 2165, givenBack: 2165 - 450 });
  });

  it('create_prorations after a partial credit note waits with a credit of at most what is left', async () => {
    const note = { amount: 1500, refund_to: 'outside' };
    const { clock, subscription } = await downgradedAfterCredit(note, 'create_prorations');
    const upcoming = expectStatus(await api.get(`/invoices/upcoming?subscription=${subscription.id}`), 200);
    expect(upcoming.lines.map((line: any) => [line.amount, line.proration])).toEqual([
      [500, false],
      [-665, true],
      [unusedShare(500, 27 * DAY_S), true],
    ]);
    // The renewal bills what the preview showed.
    await advanceClock(api, clock.id, subscription.current_period_end + 60);
    const renewal = (await subscriptionInvoices(api, subscription.id)).at(-1);
    expect(renewal.lines.map((line: any) => line.amount)).toEqual(upcoming.lines.map((line: any) => line.amount));
    expect(renewal).toMatchObject({ status: 'paid', total: 500 - 665 + 450 });
  });
});

describe('an upgrade of a period still unpaid', () => {
  it('nets its credit against its charge: the open invoice owes the period, the change only the difference', async () => {
    const owner = await customerOnClock(api, START);
    const price = await recurringPrice(api, { unitAmount: 2165 });
    const subscription = await subscribeOnClock(api, owner, [{ price, quantity: 1 }], START, {
      collection_method: 'send_invoice',
    });
    await advanceClock(api, owner.clock.id, START + 3 * DAY_S);
    expectStatus(
      await api.patch(`/subscriptions/${subscription.id}`, {
        items: [{ id: subscription.items.data[0].id, quantity: 2 }],
        proration_behavior: 'always_invoice',
      }),
      200,
    );
    const [first, now] = await subscriptionInvoices(api, subscription.id);
    expect(first).toMatchObject({ status: 'open', amount_due: 2165 });
    expect(now.lines.map((line: any) => line.amount)).toEqual([-1948, unusedShare(4330, 27 * DAY_S)]);
    expect(now).toMatchObject({ status: 'open', total: 3897 - 1948 });
    expect(await balanceOf(owner.customer.id)).toBe(0);
  });
});

type Step =
  | { kind: 'advance'; seconds: number }
  | { kind: 'credit'; which: number; share: number; refundTo: 'card' | 'customer_balance' | 'outside' }
  | { kind: 'refund'; which: number; share: number }
  | { kind: 'change'; price: number; quantity: number; behavior: 'create_prorations' | 'always_invoice' }
  | { kind: 'cancel' };

const share = fc.double({ min: 0.01, max: 1, noNaN: true });
const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('advance' as const),
      seconds: fc.integer({ min: 3600, max: 20 * DAY_S }),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('credit' as const),
      which: fc.nat(),
      share,
      refundTo: fc.constantFrom('card' as const, 'customer_balance' as const, 'outside' as const),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('refund' as const), which: fc.nat(), share }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('change' as const),
      price: fc.nat({ max: 2 }),
      quantity: fc.integer({ min: 1, max: 3 }),
      behavior: fc.constantFrom('create_prorations' as const, 'always_invoice' as const),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'cancel' as const }) },
);

describe('property: what is given back never passes what was collected', () => {
  it('holds for any order of credit notes, refunds, prorated changes and prorated cancels (fast-check)', async () => {
    const rate = expectStatus(
      await api.post('/taxRates', { display_name: 'VAT', percentage: 8.25, inclusive: false }),
      201,
    );
    const coupon = expectStatus(await api.post('/coupons', { percent_off: 15, duration: 'forever' }), 201);
    const prices = [
      await recurringPrice(api, { unitAmount: 2165 }),
      await recurringPrice(api, { unitAmount: 900, taxBehavior: 'inclusive' }),
      await recurringPrice(api, { unitAmount: 4999 }),
    ];
    let credited = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.boolean(),
        fc.boolean(),
        fc.array(stepArbitrary, { minLength: 2, maxLength: 7 }),
        async (discounted, taxed, steps) => {
          const owner = await customerOnClock(api, START);
          const tax = taxed ? [rate.id] : [];
          const subscription = await subscribeOnClock(
            api,
            owner,
            [{ price: prices[0]!, quantity: 1, tax }],
            START,
            discounted ? { coupon: coupon.id } : {},
          );
          const itemId = subscription.items.data[0].id;
          let at = START;
          const paidInvoice = async (which: number) => {
            const paid = (await subscriptionInvoices(api, subscription.id)).filter(
              (invoice) => invoice.status === 'paid' && invoice.total > 0,
            );
            return paid.length === 0 ? null : paid[which % paid.length];
          };
          for (const step of [...steps, { kind: 'cancel' } as const]) {
            if (step.kind === 'advance') {
              at += step.seconds;
              await advanceClock(api, owner.clock.id, at);
            } else if (step.kind === 'credit' || step.kind === 'refund') {
              const invoice = await paidInvoice(step.which);
              if (invoice) {
                const amount = Math.max(1, Math.floor(invoice.total * step.share));
                const answer =
                  step.kind === 'credit'
                    ? await credit({ invoice: invoice.id, amount, refund_to: step.refundTo })
                    : await api.post(`/invoices/${invoice.id}/refund`, { amount });
                expect([201, 400, 409]).toContain(answer.status);
              }
            } else if (step.kind === 'change') {
              const answer = await api.patch(`/subscriptions/${subscription.id}`, {
                items: [{ id: itemId, price: prices[step.price], quantity: step.quantity }],
                proration_behavior: step.behavior,
              });
              expect([200, 409]).toContain(answer.status);
            } else {
              const answer = await api.delete(`/subscriptions/${subscription.id}?prorate=true`);
              expect([200, 409]).toContain(answer.status);
            }
            const money = await moneyOf(owner.customer.id);
            expect(money.givenBack).toBeLessThanOrEqual(money.collected);
          }
          const lines = (await subscriptionInvoices(api, subscription.id)).flatMap((invoice) => invoice.lines);
          if (lines.some((line: any) => line.proration && line.amount < 0)) credited += 1;
        },
      ),
      { numRuns: 12 },
    );
    // The runs did credit unused time, not only refuse it.
    expect(credited).toBeGreaterThan(0);
  }, 600_000);
});
