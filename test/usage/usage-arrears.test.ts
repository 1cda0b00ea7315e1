import { apiClient, createTestAccount, startWorkerApp, type ApiClient, type WorkerApp } from '../support/harness';
import { advanceClock, billedShape, customerOnClock, subscribeOnClock, subscriptionInvoices } from '../support/clocks';
import { expectStatus, recurringPrice, subscribeNow } from '../support/subscriptions';
import { customerWithCard } from '../support/payments';
import { graduatedCents, meteredPrice, priceOnMeter, TIERS } from '../support/usage';
import { createRenewalInvoice } from '../../src/subscriptions/period-billing';

// Metered items billed in arrears through HTTP, with a worker and test clocks (docs/api.md "Usage-based billing",
// docs/decisions.md §43): a metered item takes no quantity, the first invoice bills only the licensed items, and
// each period's end bills the usage of the period that closed, priced through its tiers, after the grace.

// The grace for late events is a setting: small here, so a clock moved an hour past a period's end bills it.
process.env.USAGE_GRACE = '30m';

const at = (iso: string) => Date.parse(iso) / 1000;

let stack: WorkerApp;
let api: ApiClient;
let other: ApiClient;

beforeAll(async () => {
  stack = await startWorkerApp('usage-arrears');
  api = stack.api;
  other = apiClient(stack.app.baseUrl, (await createTestAccount(stack.app.prisma, { name: 'Other' })).apiKey);
}, 60_000);

afterAll(() => stack?.close());

describe('a subscription item on a metered price', () => {
  it('takes no quantity, shows the price as metered, and the first invoice bills the licensed items only', async () => {
    const licensed = await recurringPrice(api, { unitAmount: 2000 });
    const { price: metered } = await meteredPrice(api);
    const { customer, method } = await customerWithCard(api);
    const body = (items: unknown[]) => ({
      customer: customer.id,
      items,
      trial_days: 0,
      start_date: Math.floor(Date.now() / 1000),
      default_payment_method: method.id,
    });

    const quantified = await api.post(
      '/subscriptions',
      body([
        { price: licensed, quantity: 1 },
        { price: metered, quantity: 2 },
      ]),
    );
    expect([quantified.status, quantified.body.error.code, quantified.body.error.param]).toEqual([
      400,
      'parameter_invalid',
      'items.1.quantity',
    ]);
    const unquantified = await api.post('/subscriptions', body([{ price: licensed }]));
    expect([unquantified.status, unquantified.body.error.code, unquantified.body.error.param]).toEqual([
      400,
      'parameter_missing',
      'items.0.quantity',
    ]);

    const subscription = expectStatus(
      await api.post('/subscriptions', body([{ price: licensed, quantity: 1 }, { price: metered }])),
      201,
    );
    const items = subscription.items.data;
    expect(items.map((item: any) => [item.price.id, item.quantity, item.price.recurring.usage_type])).toEqual([
      [licensed, 1, 'licensed'],
      [metered, 0, 'metered'],
    ]);
    const [first] = await subscriptionInvoices(api, subscription.id);
    expect(first.lines.map((line: any) => [line.price, line.amount])).toEqual([[licensed, 2000]]);
    expect([first.total, first.status]).toEqual([2000, 'paid']);

    // A quantity on the metered item is refused; a metered item added by PATCH takes none.
    const patched = await api.patch(`/subscriptions/${subscription.id}`, { items: [{ id: items[1].id, quantity: 3 }] });
    expect([patched.status, patched.body.error.param]).toEqual([400, 'items.0.quantity']);
    const { price: second } = await meteredPrice(api);
    const added = expectStatus(
      await api.patch(`/subscriptions/${subscription.id}`, { items: [{ price: second }] }),
      200,
    );
    expect(added.items.data.map((item: any) => item.quantity)).toEqual([1, 0, 0]);
  });

  it('makes a $0 first invoice when every item is metered (as Stripe does)', async () => {
    const { price } = await meteredPrice(api);
    const { customer, method } = await customerWithCard(api);
    const subscription = expectStatus(
      await api.post('/subscriptions', {
        customer: customer.id,
        items: [{ price }],
        trial_days: 0,
        start_date: Math.floor(Date.now() / 1000),
        default_payment_method: method.id,
      }),
      201,
    );
    const invoices = await subscriptionInvoices(api, subscription.id);
    expect(invoices.map((invoice) => [invoice.total, invoice.status, invoice.lines.length])).toEqual([[0, 'paid', 0]]);
    expect(subscription.status).toBe('active');
  });

  it("bills a meter by one item of the customer's live subscriptions: a second one is refused, naming its price", async () => {
    const { meter, price, productId } = await meteredPrice(api);
    const sameMeter = await priceOnMeter(api, productId, meter.id, { unit_amount: 7 });
    const { customer } = await customerWithCard(api);
    const subscribe = (items: unknown[]) => subscribeNow(api, customer.id, items);
    const twice = await subscribe([{ price }, { price: sameMeter }]);
    expect([twice.status, twice.body.error?.code, twice.body.error?.param]).toEqual([
      400,
      'meter_already_billed',
      'items.1.price',
    ]);
    const first = expectStatus(await subscribe([{ price }]), 201);
    const second = await subscribe([{ price: sameMeter }]);
    expect([second.status, second.body.error?.code, second.body.error?.param]).toEqual([
      400,
      'meter_already_billed',
      'items.0.price',
    ]);
    const added = await api.patch(`/subscriptions/${first.id}`, { items: [{ price: sameMeter }] });
    expect([added.status, added.body.error?.param]).toEqual([400, 'items.0.price']);
    // Moving the item itself onto the other price of the meter is a change of price, not a second item.
    const moved = await api.patch(`/subscriptions/${first.id}`, {
      items: [{ id: first.items.data[0].id, price: sameMeter }],
    });
    expect(moved.status).toBe(200);
    expectStatus(await api.delete(`/subscriptions/${first.id}`), 200);
    expectStatus(await subscribe([{ price }]), 201);
  });

  it("refuses another account's metered price (404 naming it)", async () => {
    const { price } = await meteredPrice(other);
    const { customer } = await customerWithCard(api);
    const refused = await api.post('/subscriptions', {
      customer: customer.id,
      items: [{ price }],
      trial_days: 0,
      start_date: Math.floor(Date.now() / 1000),
    });
    expect([refused.status, refused.body.error.param]).toEqual([404, 'items.0.price']);
  });
});

const day = (iso: string) => at(`${iso}T00:00:00Z`);

/** A customer on a clock from Jan 1 2026, subscribed to a licensed price of 1000 and a metered one on TIERS. */
async function tieredSubscription() {
  const licensed = await recurringPrice(api, { unitAmount: 1000 });
  const { eventName, price: metered } = await meteredPrice(api, {
    billing_scheme: 'tiered',
    tiers_mode: 'graduated',
    tiers: TIERS,
  });
  const { clock, customer, method } = await customerOnClock(api, day('2026-01-01'));
  const subscription = await subscribeOnClock(
    api,
    { customer, method },
    [{ price: licensed, quantity: 1 }, { price: metered } as never],
    day('2026-01-01'),
  );
  return { licensed, eventName, metered, clock, customer, subscription };
}

describe('billing usage in arrears', () => {
  it('bills a year of monthly usage through its tiers with the next month, late events on a line naming their month', async () => {
    const { licensed, eventName, metered, clock, customer, subscription } = await tieredSubscription();
    let sent = 0;
    const send = (timestamp: number, tokens: number) => {
      sent += 1;
      return api.post('/usage-events', {
        events: [
          { id: `event-${sent}`, event_name: eventName, customer: customer.id, timestamp, properties: { tokens } },
        ],
      });
    };
    const months = Array.from({ length: 13 }, (_, index) =>
      day(`${2026 + Math.floor(index / 12)}-${String((index % 12) + 1).padStart(2, '0')}-01`),
    );
    const used: number[] = [];
    for (let month = 0; month < 12; month++) {
      const start = months[month]!;
      // Three events in the month, the last in its final second; totals cross the tiers as the months go.
      const amounts = [700 * (month + 1), 500, 37 * month];
      // Events in the future of the customer's time are refused: the clock goes to the month's last second first.
      await advanceClock(api, clock.id, months[month + 1]! - 1);
      expectStatus(await send(start + 3600, amounts[0]!), 202);
      expectStatus(await send(start + 15 * 86_400, amounts[1]!), 202);
      if (month === 1) {
        // February: an event of January sent at the end of February, after January's usage was invoiced.
        expectStatus(await send(months[1]! - 60, 400), 202);
        // One of December is older than the period before the current one: refused.
        const tooOld = await send(months[0]! - 1, 5);
        expect([tooOld.status, tooOld.body.error.code]).toEqual([400, 'usage_event_too_old']);
      }
      expectStatus(await send(months[month + 1]! - 1, amounts[2]!), 202);
      used.push(amounts[0]! + amounts[1]! + amounts[2]!);
      // The period ends; its invoice waits for the grace (30 minutes here) for late events.
      await advanceClock(api, clock.id, months[month + 1]! + 10 * 60);
      const waiting = await subscriptionInvoices(api, subscription.id);
      expect(waiting).toHaveLength(month + 1);
      await advanceClock(api, clock.id, months[month + 1]! + 3600);
    }

    const invoices = await subscriptionInvoices(api, subscription.id);
    expect(invoices).toHaveLength(13);
    const lineOf = (line: any) => [line.price, line.quantity, line.amount, line.period.start, line.period.end];
    expect(invoices[0].lines.map(lineOf)).toEqual([[licensed, 1, 1000, months[0], months[1]]]);
    for (let index = 1; index <= 12; index++) {
      const usagePeriod = [months[index - 1], months[index]];
      const expected: unknown[][] = [
        [licensed, 1, 1000, months[index], months[index + 1] ?? at('2027-02-01T00:00:00Z')],
      ];
      // March's invoice carries January's late 400 tokens, priced as the difference January's tiers make.
      if (index === 2)
        expected.push([metered, 400, graduatedCents(used[0]! + 400) - graduatedCents(used[0]!), months[0], months[1]]);
      expected.push([metered, used[index - 1], graduatedCents(used[index - 1]!), ...usagePeriod]);
      expect([index, invoices[index].lines.map(lineOf)]).toEqual([index, expected]);
      const total = expected.reduce((sum, line) => sum + (line[2] as number), 0);
      expect([index, invoices[index].total, invoices[index].status]).toEqual([index, total, 'paid']);
    }
    expect(invoices[2].lines[1].description).toMatch(/ usage reported late, 2026-01-01 to 2026-02-01$/);
    // Each usage line keeps the tiers it was billed through (docs/decisions.md §46); the late line the part its
    // usage adds (January had 1200 tokens: the late 400 all fall in the second tier, whose flat fee was billed).
    const tierParts = (line: any) => [line.tiers_mode, line.tiers, line.transform_quantity, line.packages];
    const januaryLine = expectStatus(await api.get(`/invoices/${invoices[1].id}`), 200).lines[1];
    expect(tierParts(januaryLine)).toEqual([
      'graduated',
      [
        { up_to: 1000, quantity: 1000, unit_amount: 5, flat_amount: 0, amount: 5000, first_unit: 1 },
        { up_to: 10_000, quantity: 200, unit_amount: 3, flat_amount: 1000, amount: 1600, first_unit: 1001 },
      ],
      null,
      null,
    ]);
    expect(tierParts(invoices[2].lines[1])).toEqual([
      'graduated',
      [{ up_to: 10_000, quantity: 400, unit_amount: 3, flat_amount: 0, amount: 1200, first_unit: 1201 }],
      null,
      null,
    ]);
    expect(tierParts(invoices[2].lines[0])).toEqual([null, null, null, null]);

    // A retried invoice activity (the same period's input, after a late event of December) answers the invoice
    // it made, unchanged: the late event waits for the next invoice, which bills it once.
    expectStatus(await send(months[12]! - 5, 250), 202);
    const january = invoices[12];
    const retried = await createRenewalInvoice(stack.app.prisma, {
      accountId: stack.accountId,
      subscriptionId: subscription.id,
      periodStart: months[12]! * 1000,
      periodEnd: at('2027-02-01T00:00:00Z') * 1000,
      customerId: customer.id,
      currency: subscription.currency,
      collectionMethod: 'charge_automatically',
      billingReason: 'subscription_cycle',
      items: subscription.items.data.map((item: any) => ({
        id: item.id,
        priceId: item.price.id,
        quantity: item.quantity,
        taxRateIds: [],
        ...(item.price.id === metered ? { metered: true } : {}),
      })),
      usagePeriod: { start: months[11]! * 1000, end: months[12]! * 1000 },
    });
    expect(retried).toEqual({ invoiceId: january.id, total: january.total });
    expect((await subscriptionInvoices(api, subscription.id))[12]).toEqual(january);
    await advanceClock(api, clock.id, at('2027-02-01T01:00:00Z'));
    const february = (await subscriptionInvoices(api, subscription.id))[13];
    const december = used[11]!;
    expect(february.lines.map(lineOf)[1]).toEqual([
      metered,
      250,
      graduatedCents(december + 250) - graduatedCents(december),
      months[11],
      months[12],
    ]);
  }, 240_000);
});

describe('usage past what an invoice may bill', () => {
  it('leaves the period not invoiced (past_due), as any invoice past the ceiling, instead of failing for ever', async () => {
    const { eventName, price } = await meteredPrice(api, { unit_amount: 100_000 });
    const { clock, customer, method } = await customerOnClock(api, day('2026-01-01'));
    const subscription = await subscribeOnClock(api, { customer, method }, [{ price } as never], day('2026-01-01'));
    await advanceClock(api, clock.id, day('2026-01-31'));
    const events = [1, 2].map((index) => ({
      id: `huge-${index}`,
      event_name: eventName,
      customer: customer.id,
      timestamp: day('2026-01-20'),
      properties: { tokens: 1_000_000_000_000 },
    }));
    expectStatus(await api.post('/usage-events', { events }), 202);
    await advanceClock(api, clock.id, at('2026-02-01T01:00:00Z'));
    expect(expectStatus(await api.get(`/subscriptions/${subscription.id}`), 200).status).toBe('past_due');
    expect(await subscriptionInvoices(api, subscription.id)).toHaveLength(1);
  });
});

describe('what applies to usage lines', () => {
  /** A customer on a clock from Jan 1 2026, subscribed to `items`, and a sender of its meter's events. */
  async function subscribed(items: unknown[], eventName: string, extra: Record<string, unknown> = {}) {
    const { clock, customer, method } = await customerOnClock(api, day('2026-01-01'));
    const subscription = await subscribeOnClock(api, { customer, method }, items as never, day('2026-01-01'), extra);
    let sent = 0;
    const send = async (timestamp: number, tokens: number) => {
      sent += 1;
      const event = { id: `${subscription.id}-${sent}`, event_name: eventName, customer: customer.id, timestamp };
      expectStatus(await api.post('/usage-events', { events: [{ ...event, properties: { tokens } }] }), 202);
    };
    const advance = (iso: string) => advanceClock(api, clock.id, at(iso));
    return { clock, customer, subscription, send, advance };
  }
  const usageLine = (invoice: any) => invoice.lines.find((line: any) => line.description?.includes(' usage'));

  it('a cancel now bills the usage up to it; a cancel at period end the whole period, with no next invoice', async () => {
    const { eventName, price } = await meteredPrice(api);
    const now = await subscribed([{ price }], eventName);
    await now.advance('2026-01-20T00:00:00Z');
    await now.send(day('2026-01-10'), 100);
    expectStatus(await api.delete(`/subscriptions/${now.subscription.id}`), 200);
    const [first, final] = await subscriptionInvoices(api, now.subscription.id);
    expect(first.total).toBe(0);
    expect([usageLine(final).quantity, usageLine(final).amount, usageLine(final).period]).toEqual([
      100,
      300,
      { start: day('2026-01-01'), end: day('2026-01-20') },
    ]);
    expect([final.total, final.status]).toEqual([300, 'paid']);

    const { eventName: otherName, price: other } = await meteredPrice(api);
    const atEnd = await subscribed([{ price: other }], otherName);
    await atEnd.advance('2026-01-25T00:00:00Z');
    await atEnd.send(day('2026-01-24'), 200);
    expectStatus(await api.delete(`/subscriptions/${atEnd.subscription.id}?at_period_end=true`), 200);
    await atEnd.advance('2026-02-01T02:00:00Z');
    const invoices = await subscriptionInvoices(api, atEnd.subscription.id);
    expect(invoices).toHaveLength(2);
    expect([usageLine(invoices[1]).amount, usageLine(invoices[1]).period]).toEqual([
      600,
      { start: day('2026-01-01'), end: day('2026-02-01') },
    ]);
    expect(expectStatus(await api.get(`/subscriptions/${atEnd.subscription.id}`), 200).status).toBe('canceled');
  });

  it('usage during a pause is billed with its period at the first invoice after the resume', async () => {
    const { eventName, price } = await meteredPrice(api);
    const paused = await subscribed([{ price }], eventName);
    await paused.advance('2026-01-10T00:00:00Z');
    await paused.send(day('2026-01-05'), 100);
    expectStatus(await api.post(`/subscriptions/${paused.subscription.id}/pause`), 200);
    await paused.advance('2026-01-20T00:00:00Z');
    await paused.send(day('2026-01-15'), 50);
    expectStatus(await api.post(`/subscriptions/${paused.subscription.id}/resume`), 200);
    // Ten paused days move the next billing date from Feb 1 to Feb 11.
    await paused.advance('2026-02-11T02:00:00Z');
    const invoices = await subscriptionInvoices(api, paused.subscription.id);
    expect(invoices).toHaveLength(2);
    expect([usageLine(invoices[1]).quantity, usageLine(invoices[1]).period]).toEqual([
      150,
      { start: day('2026-01-01'), end: day('2026-02-11') },
    ]);
  });

  it('with an upgrade prorated, a coupon, tax, a credit note and the balance: the usage line is billed whole and treated as any line', async () => {
    const rate = expectStatus(
      await api.post('/taxRates', { display_name: 'Sales tax', percentage: 10, inclusive: false }),
      201,
    );
    const coupon = expectStatus(
      await api.post('/coupons', { name: 'Quarter', percent_off: 25, duration: 'forever' }),
      201,
    );
    const basic = await recurringPrice(api, { unitAmount: 1000 });
    const pro = await recurringPrice(api, { unitAmount: 3000 });
    const { eventName, price } = await meteredPrice(api);
    const world = await subscribed(
      [
        { price: basic, quantity: 1 },
        { price, tax: [rate.id] },
      ],
      eventName,
      {
        coupon: coupon.id,
      },
    );
    const [licensedItem] = world.subscription.items.data;
    await world.advance('2026-01-16T00:00:00Z');
    expectStatus(
      await api.patch(`/subscriptions/${world.subscription.id}`, {
        items: [{ id: licensedItem.id, price: pro }],
        proration_behavior: 'create_prorations',
      }),
      200,
    );
    await world.advance('2026-01-31T23:00:00Z');
    await world.send(day('2026-01-20'), 1000);
    // The upcoming invoice prices the usage to date, and the invoice the period's end makes is the same.
    const preview = expectStatus(await api.get(`/invoices/upcoming?subscription=${world.subscription.id}`), 200);
    await world.advance('2026-02-01T02:00:00Z');
    const february = (await subscriptionInvoices(api, world.subscription.id))[1];
    expect(billedShape(february)).toEqual(billedShape(preview));

    const usage = usageLine(february);
    // The usage is billed for the whole period at its price, not prorated by the upgrade.
    expect([usage.quantity, usage.amount, usage.proration]).toEqual([1000, 3000, false]);
    expect(february.lines.filter((line: any) => line.proration).map((line: any) => line.amount > 0)).toEqual([
      false,
      true,
    ]);
    // The coupon takes 25% of the subtotal, usage included, split over the tax groups of the positive lines
    // (docs/api.md "Coupons and discounts"); the tax is 10% of the discounted usage, half up.
    const discounts = february.lines.filter((line: any) => line.discount !== null);
    const discounted = (lines: any[]) => lines.reduce((sum: number, line: any) => sum + line.amount, 0);
    expect(discounted(discounts)).toBe(-Math.floor((2 * february.subtotal * 2500 + 10_000) / 20_000));
    const usageGroup = discounted(discounts.filter((line: any) => line.tax_rates.includes(rate.id)));
    const positive = discounted(february.lines.filter((line: any) => line.discount === null && line.amount > 0));
    expect(Math.abs(usageGroup - (discounted(discounts) * 3000) / positive)).toBeLessThan(1);
    expect(february.tax).toBe(Math.floor((2 * (3000 + usageGroup) * 10 + 100) / 200));

    // A credit note of the whole usage line goes to the customer's balance, which March's invoice uses.
    const note = expectStatus(
      await api.post('/credit-notes', {
        invoice: february.id,
        lines: [{ invoice_line: usage.id }],
        reason: 'order_change',
        refund_to: 'customer_balance',
      }),
      201,
    );
    const balance = expectStatus(await api.get(`/customers/${world.customer.id}`), 200).balance;
    expect(balance).toBe(-note.amount);
    await world.advance('2026-03-01T02:00:00Z');
    const march = (await subscriptionInvoices(api, world.subscription.id))[2];
    expect([usageLine(march).amount, march.applied_balance]).toEqual([0, Math.min(note.amount, march.total)]);
  });
});

describe('seeing usage', () => {
  it("answers each metered item's running total, priced through its tiers, by day; the upcoming invoice bills the same", async () => {
    const { eventName, metered: price, clock, customer, subscription } = await tieredSubscription();
    await advanceClock(api, clock.id, at('2026-01-03T12:00:00Z'));
    const events = [
      [at('2026-01-01T05:00:00Z'), 700],
      [at('2026-01-02T00:00:00Z'), 600],
      [at('2026-01-03T10:00:00Z'), 50],
    ].map(([timestamp, tokens], index) => ({
      id: `seen-${index}`,
      event_name: eventName,
      customer: customer.id,
      timestamp,
      properties: { tokens },
    }));
    expectStatus(await api.post('/usage-events', { events }), 202);

    const usage = expectStatus(await api.get(`/subscriptions/${subscription.id}/usage`), 200);
    const metered = subscription.items.data[1];
    expect(usage).toEqual({
      object: 'subscription_usage',
      subscription: subscription.id,
      period: { start: day('2026-01-01'), end: at('2026-01-03T12:00:00Z') },
      items: [
        {
          subscription_item: metered.id,
          price,
          meter: expect.stringMatching(/^mtr_/),
          aggregation: 'sum',
          total: 1350,
          amount: graduatedCents(1350),
          billed: { quantity: 0, amount: 0 },
          unbilled: { quantity: 1350, amount: graduatedCents(1350) },
          daily: [
            { start: day('2026-01-01'), end: day('2026-01-02'), value: 700 },
            { start: day('2026-01-02'), end: day('2026-01-03'), value: 600 },
            { start: day('2026-01-03'), end: at('2026-01-03T12:00:00Z'), value: 50 },
          ],
        },
      ],
    });
    const upcoming = expectStatus(await api.get(`/invoices/upcoming?subscription=${subscription.id}`), 200);
    expect(upcoming.lines.find((line: any) => line.price === price)).toMatchObject({
      quantity: 1350,
      amount: graduatedCents(1350),
      period: { start: day('2026-01-01'), end: day('2026-02-01') },
      tiers_mode: 'graduated',
      tiers: [
        { up_to: 1000, quantity: 1000, unit_amount: 5, flat_amount: 0, amount: 5000 },
        { up_to: 10_000, quantity: 350, unit_amount: 3, flat_amount: 1000, amount: 2050 },
      ],
    });
    expect((await other.get(`/subscriptions/${subscription.id}/usage`)).status).toBe(404);
    expect((await api.get('/subscriptions/sub_missing/usage')).status).toBe(404);
  });
});
