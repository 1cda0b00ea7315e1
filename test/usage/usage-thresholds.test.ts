import { apiClient, createTestAccount, startWorkerApp, type ApiClient, type WorkerApp } from '../support/harness';
import { advanceClock, customerOnClock, subscribeOnClock, subscriptionInvoices } from '../support/clocks';
import { expectStatus } from '../support/subscriptions';
import { graduatedCents, meteredPrice, TIERS } from '../support/usage';

// Billing thresholds through HTTP with a worker and test clocks (docs/decisions.md §43, "Billing thresholds"):
// the usage to date is invoiced early once its amount reaches billing_thresholds.amount_gte, once per crossing,
// and the period's own invoice bills only the rest.

process.env.USAGE_GRACE = '30m';

const at = (iso: string) => Date.parse(iso) / 1000;
const day = (iso: string) => at(`${iso}T00:00:00Z`);

let stack: WorkerApp;
let api: ApiClient;
let other: ApiClient;

beforeAll(async () => {
  stack = await startWorkerApp('usage-thresholds');
  api = stack.api;
  other = apiClient(stack.app.baseUrl, (await createTestAccount(stack.app.prisma, { name: 'Other' })).apiKey);
}, 60_000);

afterAll(() => stack?.close());

/** Polls the subscription's invoices until `done` holds of them (the workflow acts on the notice after the 202). */
async function invoicesWhen(subscriptionId: string, done: (invoices: any[]) => boolean) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const invoices = await subscriptionInvoices(api, subscriptionId);
    if (done(invoices)) return invoices;
    if (Date.now() > deadline) throw new Error(`invoices of ${subscriptionId}: ${JSON.stringify(invoices.length)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const thresholdInvoices = (invoices: any[]) =>
  invoices.filter((invoice) => invoice.billing_reason === 'subscription_threshold');

/**
 * A subscription of a metered price at 10 cents a token with `extra` (its threshold...), on a clock moved to
 * Jan 20; `send` reports tokens used on Jan 5, `settledEarly` waits for `count` paid early invoices.
 */
async function thresholdWorld(idPrefix: string, extra: Record<string, unknown>) {
  const { eventName, price } = await meteredPrice(api, { unit_amount: 10 });
  const { clock, customer, method } = await customerOnClock(api, day('2026-01-01'));
  const subscription = await subscribeOnClock(
    api,
    { customer, method },
    [{ price } as never],
    day('2026-01-01'),
    extra,
  );
  await advanceClock(api, clock.id, day('2026-01-20'));
  let sent = 0;
  const send = async (tokens: number) => {
    sent += 1;
    const event = {
      id: `${idPrefix}-${sent}`,
      event_name: eventName,
      customer: customer.id,
      timestamp: day('2026-01-05'),
    };
    expectStatus(await api.post('/usage-events', { events: [{ ...event, properties: { tokens } }] }), 202);
  };
  const settledEarly = (count: number) =>
    invoicesWhen(
      subscription.id,
      (list) => thresholdInvoices(list).filter((i) => i.status === 'paid').length === count,
    );
  return { clock, subscription, send, settledEarly };
}

describe('billing_thresholds.amount_gte', () => {
  it('is validated naming the field, answered, removed with null, and refused on another account (404)', async () => {
    const { price } = await meteredPrice(api);
    const { customer, method } = await customerOnClock(api, day('2026-01-01'));
    const body = (thresholds: unknown) => ({
      customer: customer.id,
      items: [{ price }],
      trial_days: 0,
      start_date: day('2026-01-01'),
      default_payment_method: method.id,
      billing_thresholds: thresholds,
    });
    for (const [thresholds, param] of [
      [{ amount_gte: 49 }, 'billing_thresholds.amount_gte'],
      [{ amount_gte: 100.5 }, 'billing_thresholds.amount_gte'],
      [{ amount_gte: '5000' }, 'billing_thresholds.amount_gte'],
      [{ amount_gte: 100_000_000 }, 'billing_thresholds.amount_gte'],
      [{}, 'billing_thresholds.amount_gte'],
      [{ amount_gte: 5000, usage_gte: 3 }, 'billing_thresholds.usage_gte'],
    ] as const) {
      const refused = await api.post('/subscriptions', body(thresholds));
      expect([thresholds, refused.status, refused.body.error?.param]).toEqual([thresholds, 400, param]);
    }
    const subscription = expectStatus(await api.post('/subscriptions', body({ amount_gte: 5000 })), 201);
    expect(subscription.billing_thresholds).toEqual({ amount_gte: 5000 });
    const foreign = await other.patch(`/subscriptions/${subscription.id}`, { billing_thresholds: { amount_gte: 50 } });
    expect(foreign.status).toBe(404);
    const changed = expectStatus(
      await api.patch(`/subscriptions/${subscription.id}`, { billing_thresholds: { amount_gte: 50 } }),
      200,
    );
    expect(changed.billing_thresholds).toEqual({ amount_gte: 50 });
    const bad = await api.patch(`/subscriptions/${subscription.id}`, { billing_thresholds: { amount_gte: 0 } });
    expect([bad.status, bad.body.error?.param]).toEqual([400, 'billing_thresholds.amount_gte']);
    const removed = expectStatus(
      await api.patch(`/subscriptions/${subscription.id}`, { billing_thresholds: null }),
      200,
    );
    expect(removed.billing_thresholds).toBeNull();
    expect(expectStatus(await api.get(`/subscriptions/${subscription.id}`), 200).billing_thresholds).toBeNull();
  });

  it('invoices the usage to date once when a burst of batches crosses it; the period end bills the rest', async () => {
    const { eventName, price } = await meteredPrice(api, {
      billing_scheme: 'tiered',
      tiers_mode: 'graduated',
      tiers: TIERS,
    });
    const { clock, customer, method } = await customerOnClock(api, day('2026-01-01'));
    const subscription = await subscribeOnClock(api, { customer, method }, [{ price } as never], day('2026-01-01'), {
      billing_thresholds: { amount_gte: 5000 },
    });
    await advanceClock(api, clock.id, day('2026-01-10'));
    let sent = 0;
    let tokens = 0;
    const batch = (amount: number, timestamp: number) => {
      sent += 1;
      tokens += amount;
      return api.post('/usage-events', {
        events: [
          { id: `t-${sent}`, event_name: eventName, customer: customer.id, timestamp, properties: { tokens: amount } },
        ],
      });
    };

    // Below the threshold: 500 tokens cost 2500 cents, no early invoice.
    expectStatus(await batch(500, day('2026-01-02')), 202);
    // The same batch again is counted once and crosses nothing.
    sent -= 1;
    tokens -= 500;
    expectStatus(await batch(500, day('2026-01-02')), 202);

    // A burst of ten concurrent batches of 100 tokens takes the usage to 1500 tokens (7500 cents).
    const burst = await Promise.all(Array.from({ length: 10 }, () => batch(100, day('2026-01-09'))));
    expect(burst.map((answer) => answer.status)).toEqual(Array(10).fill(202));
    // The early invoice is charged at once: it is looked at once its charge is through.
    const invoices = await invoicesWhen(subscription.id, (list) =>
      thresholdInvoices(list).some((invoice) => invoice.status !== 'draft' && invoice.status !== 'open'),
    );
    const [early] = thresholdInvoices(invoices);
    // Whichever batches the check saw, the invoice bills at least the threshold of usage, priced through the tiers.
    const billedEarly = early.lines[0].quantity;
    expect(early.lines.map((line: any) => [line.price, line.amount])).toEqual([[price, graduatedCents(billedEarly)]]);
    expect(graduatedCents(billedEarly)).toBeGreaterThanOrEqual(5000);
    expect([early.status, early.total]).toEqual(['paid', graduatedCents(billedEarly)]);
    const created = expectStatus(await api.get('/events?type=invoice.created&take=100'), 200).data.filter(
      (event: any) => event.data.id === early.id,
    );
    expect(created.map((event: any) => event.data.billing_reason)).toEqual(['subscription_threshold']);

    // The period's usage reads whole, with what the early invoice billed of it and what is left for the period's
    // invoice, which the upcoming invoice bills.
    const usage = expectStatus(await api.get(`/subscriptions/${subscription.id}/usage`), 200);
    expect(usage.items.map((item: any) => [item.total, item.amount, item.billed, item.unbilled])).toEqual([
      [
        1500,
        graduatedCents(1500),
        { quantity: billedEarly, amount: graduatedCents(billedEarly) },
        { quantity: 1500 - billedEarly, amount: graduatedCents(1500) - graduatedCents(billedEarly) },
      ],
    ]);
    const upcoming = expectStatus(await api.get(`/invoices/upcoming?subscription=${subscription.id}`), 200);
    expect(upcoming.lines.map((line: any) => [line.quantity, line.amount])).toEqual([
      [usage.items[0].unbilled.quantity, usage.items[0].unbilled.amount],
    ]);
    expect((await other.get(`/subscriptions/${subscription.id}/usage`)).status).toBe(404);

    // The rest stays below the threshold: no second early invoice, however the notices interleaved.
    await batch(1, day('2026-01-09'));
    await advanceClock(api, clock.id, at('2026-02-01T01:00:00Z'));
    const all = await subscriptionInvoices(api, subscription.id);
    expect(thresholdInvoices(all)).toHaveLength(1);
    const february = all.find((invoice) => invoice.billing_reason === 'subscription_cycle');
    // The period's invoice bills what the early one did not, the tiers seeing the period whole.
    expect(february.lines.map((line: any) => [line.quantity, line.amount, line.period])).toEqual([
      [
        tokens - billedEarly,
        graduatedCents(tokens) - graduatedCents(billedEarly),
        { start: day('2026-01-01'), end: day('2026-02-01') },
      ],
    ]);
    expect(tokens).toBe(1501);
  }, 180_000);

  it('crosses again after an early invoice, and a cancellation bills only what no early invoice did', async () => {
    const { subscription, send, settledEarly } = await thresholdWorld('c', {
      billing_thresholds: { amount_gte: 5000 },
    });

    await send(600);
    await settledEarly(1);
    await send(700);
    // Both share the clock's time: the account's invoice numbers say which came first.
    const early = thresholdInvoices(await settledEarly(2)).sort((a, b) =>
      a.number.localeCompare(b.number, 'en', { numeric: true }),
    );
    expect(early.map((invoice) => [invoice.lines[0].quantity, invoice.total])).toEqual([
      [600, 6000],
      [700, 7000],
    ]);
    // Below the threshold again: billed by the final invoice only.
    await send(100);
    expectStatus(await api.delete(`/subscriptions/${subscription.id}`), 200);
    const invoices = await subscriptionInvoices(api, subscription.id);
    // The early invoices and the final one share the clock's time: the final one is the ending's change.
    const final = invoices.filter((invoice) => invoice.billing_reason === 'subscription_update');
    expect(final.map((invoice) => invoice.lines.map((line: any) => [line.quantity, line.amount]))).toEqual([
      [[100, 1000]],
    ]);
    const billed = invoices.flatMap((invoice) => invoice.lines).reduce((sum, line) => sum + line.quantity, 0);
    expect([thresholdInvoices(invoices).length, billed]).toEqual([2, 600 + 700 + 100]);
  }, 120_000);

  it("takes the subscription's discount, a once-coupon on the first invoice it takes something off only", async () => {
    const coupon = expectStatus(
      await api.post('/coupons', { name: 'Quarter', percent_off: 25, duration: 'once' }),
      201,
    );
    const { clock, subscription, send, settledEarly } = await thresholdWorld('d', {
      billing_thresholds: { amount_gte: 4000 },
      coupon: coupon.id,
    });
    // Independently: 10 cents a token, 25% off the first early invoice (the $0 first invoice took nothing off).
    const discounted = (tokens: number) => tokens * 10 - (tokens * 10) / 4;

    await send(600);
    const [first] = thresholdInvoices(await settledEarly(1));
    expect([first.subtotal, first.total, first.amount_paid]).toEqual([6000, discounted(600), discounted(600)]);
    expect(first.lines.filter((line: any) => line.discount !== null).map((line: any) => line.amount)).toEqual([-1500]);
    // Used up: the next early invoice and the period's take nothing off.
    await send(700);
    // Both early invoices share the clock's time: the second is the one that is not the first.
    const [second] = thresholdInvoices(await settledEarly(2)).filter((invoice) => invoice.id !== first.id);
    expect([second.subtotal, second.total]).toEqual([7000, 7000]);
    await send(100);
    await advanceClock(api, clock.id, at('2026-02-01T01:00:00Z'));
    const february = (await subscriptionInvoices(api, subscription.id)).find(
      (invoice) => invoice.billing_reason === 'subscription_cycle',
    );
    expect([february.subtotal, february.total]).toEqual([1000, 1000]);
    expect(expectStatus(await api.get(`/subscriptions/${subscription.id}`), 200).discount).toBeNull();
  }, 180_000);
});
