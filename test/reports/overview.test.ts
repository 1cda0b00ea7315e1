import { OVERVIEW_STATEMENTS, utcDate } from '../../src/reports/overview.records';
import { apiClient, createTestAccount, type ApiClient } from '../support/harness';
import { CARDS, customerWithCard, simpleInvoice } from '../support/payments';
import {
  createSubscription,
  expectStatus,
  recurringPrice,
  startSubscriptionWorld,
  unix,
  type SubscriptionWorld,
} from '../support/subscriptions';

/**
 * GET /reports/overview (docs/api.md, "Reports"): figures computed from subscriptions, invoices and
 * charges made through the API, an account that never sees another's, a fresh account's zeros, and
 * EXPLAIN of its statements reading through account-scoped indexes.
 */
let world: SubscriptionWorld;
let api: ApiClient;
let other: ApiClient;
let otherAccountId: string;

beforeAll(async () => {
  world = await startSubscriptionWorld();
  api = world.api;
  const account = await createTestAccount(world.app.prisma, { name: 'Other' });
  other = apiClient(world.app.baseUrl, account.apiKey);
  otherAccountId = account.accountId;
});
afterAll(() => world?.close());

const today = () => new Date().toISOString().slice(0, 10);

async function subscribe(client: ApiClient, customer: string, price: string, quantity: number) {
  return createSubscription(client, {
    customer,
    items: [{ price, quantity }],
    trial_days: 0,
    start_date: unix(await world.env.currentTimeMs()),
  });
}

async function overview(client: ApiClient) {
  return expectStatus(await client.get('/reports/overview'), 200, 'GET /reports/overview');
}

describe('GET /reports/overview', () => {
  it('answers a fresh account with zeros in USD and 30 days of 0, to any role', async () => {
    // A standard key: the figures are read by every role (the home screen of every user).
    const fresh = apiClient(
      world.app.baseUrl,
      (await createTestAccount(world.app.prisma, { role: 'standard' })).apiKey,
    );
    const body = await overview(fresh);
    expect(body.object).toBe('overview');
    expect(body.currencies).toHaveLength(1);
    const [usd] = body.currencies;
    expect(usd).toMatchObject({
      currency: 'USD',
      mrr: 0,
      active_subscriptions: 0,
      revenue: { total: 0 },
      failed_payments: 0,
      open_invoices: { count: 0, amount_due: 0 },
      past_due_invoices: { count: 0, amount_due: 0 },
      past_due_payment_plans: 0,
    });
    expect(usd.revenue.daily).toHaveLength(30);
    expect(usd.revenue.daily.every((day: { amount: number }) => day.amount === 0)).toBe(true);
    expect(usd.revenue.daily.at(-1).date).toBe(today());
    expect(body.revenue_start).toBe(Date.parse(`${usd.revenue.daily[0].date}T00:00:00Z`) / 1000);
  });

  it('computes MRR, revenue with a refund, failed payments and open and past-due invoices of the account only', async () => {
    const { customer } = await customerWithCard(api, CARDS.succeeds);
    // 2 x 4900 a month: 9800; 120000 a year: 10000 a month; 1000 every 2 weeks: 1000 * 52 / 24 = 2166.67 -> 2167.
    await subscribe(api, customer.id, await recurringPrice(api, { unitAmount: 4900 }), 2);
    await subscribe(api, customer.id, await recurringPrice(api, { unitAmount: 120000, interval: 'year' }), 1);
    await subscribe(
      api,
      customer.id,
      await recurringPrice(api, { unitAmount: 1000, interval: 'week', intervalCount: 2 }),
      1,
    );

    // A one-off invoice paid (5000), then partly refunded (1500).
    const paid = await simpleInvoice(api, customer.id, 5000);
    expectStatus(await api.put(`/invoices/${paid.id}`), 200, 'pay');
    expectStatus(await api.post(`/invoices/${paid.id}/refund`, { amount: 1500 }), 201, 'refund');

    // A declined charge: a failed payment, and its invoice open and past due (automatic collection failed).
    const declined = await customerWithCard(api, CARDS.declined);
    const failing = await simpleInvoice(api, declined.customer.id, 700);
    const attempt = await api.put(`/invoices/${failing.id}`);
    expect(attempt.body).toMatchObject({ status: 'open', attempt_count: 1 });

    // Open invoices sent for payment: one due later, one whose due date has passed.
    const later = await simpleInvoice(api, customer.id, 300, {
      collection_method: 'send_invoice',
      due_date: unix(Date.now()) + 7 * 86_400,
    });
    expectStatus(await api.post(`/invoices/${later.id}/finalize`), 200, 'finalize');
    const overdue = await simpleInvoice(api, customer.id, 200, {
      collection_method: 'send_invoice',
      due_date: unix(Date.now()) + 86_400,
    });
    expectStatus(await api.post(`/invoices/${overdue.id}/finalize`), 200, 'finalize');
    // The API refuses a due date in the past; the passing of time is written in the row.
    await world.app.prisma.invoice.update({
      where: { id: overdue.id },
      data: { dueDate: new Date(Date.now() - 86_400_000) },
    });

    // Another account's subscription and payments must never be counted.
    const theirs = await customerWithCard(other, CARDS.succeeds);
    await subscribe(other, theirs.customer.id, await recurringPrice(other, { unitAmount: 99_900 }), 3);
    const theirInvoice = await simpleInvoice(other, theirs.customer.id, 12_345);
    await other.post(`/invoices/${theirInvoice.id}/finalize`);

    const body = await overview(api);
    expect(body.currencies.map((figure: { currency: string }) => figure.currency)).toEqual(['USD']);
    const [usd] = body.currencies;
    const revenue = 9800 + 120000 + 1000 + 5000 - 1500;
    expect(usd).toMatchObject({
      mrr: 9800 + 10000 + 2167,
      active_subscriptions: 3,
      revenue: { total: revenue },
      failed_payments: 1,
      open_invoices: { count: 3, amount_due: 700 + 300 + 200 },
      past_due_invoices: { count: 2, amount_due: 700 + 200 },
      past_due_payment_plans: 0,
    });
    expect(usd.revenue.daily).toHaveLength(30);
    expect(usd.revenue.daily.at(-1)).toEqual({ date: today(), amount: revenue });
    expect(usd.revenue.daily.slice(0, -1).every((day: { amount: number }) => day.amount === 0)).toBe(true);

    // The same figures from the ledger the API lists.
    const ledger = (await api.get('/transactions?take=100')).body.data as { status: string; amount: number }[];
    expect(ledger.filter((t) => t.status === 'succeeded').reduce((sum, t) => sum + t.amount, 0)).toBe(revenue);

    const theirFigures = (await overview(other)).currencies[0];
    expect(theirFigures).toMatchObject({
      mrr: 3 * 99_900,
      active_subscriptions: 1,
      revenue: { total: 3 * 99_900 },
      failed_payments: 0,
      open_invoices: { count: 1, amount_due: 12_345 },
    });
  });

  it('counts MRR as billed: after recurring discounts, without subscriptions set to end (an independent calculation)', async () => {
    const account = await createTestAccount(world.app.prisma, { name: 'Discounted' });
    const client = apiClient(world.app.baseUrl, account.apiKey);
    // The rule of docs/api.md "MRR", computed here apart from the service: a period's cents per month, half up.
    const perYear = { day: 365, week: 52, month: 12, year: 1 } as const;
    const monthly = (cents: number, interval: keyof typeof perYear, count = 1) => {
      const numerator = cents * perYear[interval];
      const denominator = 12 * count;
      const whole = Math.floor(numerator / denominator);
      return 2 * (numerator - whole * denominator) >= denominator ? whole + 1 : whole;
    };
    const coupon = async (body: Record<string, unknown>) =>
      expectStatus(await client.post('/coupons', body), 201, 'POST /coupons').id as string;
    const start = async (customer: string, price: string, quantity: number, extra: Record<string, unknown> = {}) =>
      createSubscription(client, {
        customer,
        items: [{ price, quantity }],
        trial_days: 0,
        start_date: unix(await world.env.currentTimeMs()),
        ...extra,
      });
    let expected = 0;

    // 2 x 4900 a month with its own 25% forever, beating its customer's 10% forever: 9800 - 2450.
    const ada = (await customerWithCard(client, CARDS.succeeds)).customer.id;
    expectStatus(
      await client.patch(`/customers/${ada}`, { coupon: await coupon({ percent_off: 10, duration: 'forever' }) }),
      200,
    );
    await start(ada, await recurringPrice(client, { unitAmount: 4900 }), 2, {
      coupon: await coupon({ percent_off: 25, duration: 'forever' }),
    });
    expected += monthly(9800, 'month') - monthly(9800 - Math.round(9800 * 0.75), 'month');

    // 120000 a year under the customer's 10% forever: 10000 - 1000.
    await start(ada, await recurringPrice(client, { unitAmount: 120000, interval: 'year' }), 1);
    expected += monthly(120000, 'year') - monthly(12000, 'year');

    // 1000 every 2 weeks with 300 off for 3 months (repeating, covering this period): 2167 - 650.
    const bea = (await customerWithCard(client, CARDS.succeeds)).customer.id;
    await start(bea, await recurringPrice(client, { unitAmount: 1000, interval: 'week', intervalCount: 2 }), 1, {
      coupon: await coupon({ amount_off: 300, currency: 'USD', duration: 'repeating', duration_in_months: 3 }),
    });
    expected += monthly(1000, 'week', 2) - monthly(300, 'week', 2);

    // 2000 a month with 50% once: the first invoice took it; the rate is the price's.
    const cid = (await customerWithCard(client, CARDS.succeeds)).customer.id;
    const once = await start(cid, await recurringPrice(client, { unitAmount: 2000 }), 1, {
      coupon: await coupon({ percent_off: 50, duration: 'once' }),
    });
    expect(once.discount).toBeNull();
    expected += monthly(2000, 'month');

    // 3000 a month with 40% for a month whose end has passed (written in the row): the price's.
    const repeating = await start(cid, await recurringPrice(client, { unitAmount: 3000 }), 1, {
      coupon: await coupon({ percent_off: 40, duration: 'repeating', duration_in_months: 1 }),
    });
    await world.app.prisma.discount.updateMany({
      where: { subscriptionId: repeating.id },
      data: { start: new Date('2001-01-01T00:00:00Z'), end: new Date('2001-02-01T00:00:00Z') },
    });
    expected += monthly(3000, 'month');

    // 5000 a month at 100% forever: 0, never below.
    await start(cid, await recurringPrice(client, { unitAmount: 5000 }), 1, {
      coupon: await coupon({ percent_off: 100, duration: 'forever' }),
    });

    // Set to cancel at the end of the period, or to end on a date: 0 (still active subscriptions).
    const leaving = await start(cid, await recurringPrice(client, { unitAmount: 7000 }), 1);
    expectStatus(await client.patch(`/subscriptions/${leaving.id}`, { cancel_at_period_end: true }), 200);
    const ending = await start(cid, await recurringPrice(client, { unitAmount: 8000 }), 1, {
      end_date: unix(await world.env.currentTimeMs()) + 90 * 86_400,
    });
    expect(ending.end_date).not.toBeNull();

    const [usd] = (await overview(client)).currencies;
    expect(usd.active_subscriptions).toBe(8);
    expect(usd.mrr).toBe(expected);
    expect(expected).toBe(7350 + 9000 + 1517 + 2000 + 3000);
  });

  it('reads every table through an account-scoped index when sequential scans are priced out', async () => {
    const now = new Date();
    const values: Record<keyof typeof OVERVIEW_STATEMENTS, unknown[]> = {
      RECURRING: [otherAccountId],
      DAILY_LEDGER: [otherAccountId, utcDate(new Date(now.getTime() - 30 * 86_400_000)), utcDate(now)],
      OPEN_INVOICES: [otherAccountId, now],
      PAST_DUE_PLANS: [otherAccountId],
    };
    const plans: Record<string, string> = {};
    for (const [name, statement] of Object.entries(OVERVIEW_STATEMENTS)) {
      plans[name] = await world.app.prisma.$transaction(async (tx) => {
        // On a few rows the planner rightly prefers a sequential scan; this asks which index it would use.
        await tx.$executeRawUnsafe('SET LOCAL enable_seqscan = off');
        const rows = await tx.$queryRawUnsafe<{ 'QUERY PLAN': string }[]>(
          `EXPLAIN ${statement.text}`,
          ...values[name as keyof typeof OVERVIEW_STATEMENTS],
        );
        return rows.map((row) => row['QUERY PLAN']).join('\n');
      });
    }
    // Each statement's own table is entered by an index led by account_id (which one, and whether through a
    // bitmap, depends on the rows and their statistics).
    const scanOf = (table: string) =>
      new RegExp(`(Scan using ${table}_account_id_\\w+ on ${table}\\b|Bitmap Index Scan on ${table}_account_id_\\w+)`);
    expect(plans.RECURRING).toMatch(scanOf('subscriptions'));
    // The revenue window reads the per-day sums, never the ledger's rows (docs/decisions.md §33).
    expect(plans.DAILY_LEDGER).toMatch(
      /(Scan using revenue_days_account_id_day_currency_idx on revenue_days\b|Bitmap Index Scan on revenue_days_account_id_day_currency_idx)/,
    );
    expect(plans.DAILY_LEDGER).not.toMatch(/transactions/);
    expect(plans.OPEN_INVOICES).toMatch(scanOf('invoices'));
    expect(plans.PAST_DUE_PLANS).toMatch(scanOf('payment_plans'));
    for (const plan of Object.values(plans)) expect(plan).not.toMatch(/Seq Scan/);
  });
});
