import {
  apiClient,
  createTestAccount,
  startTestApp,
  startTestWorker,
  type ApiClient,
  type TestApp,
  startWorkerApp,
} from '../support/harness';
import { addPaymentMethod, cardBody, CARDS } from '../support/payments';
import { expectStatus, recurringPrice } from '../support/subscriptions';
import { EXPIRY, hostedPath, pageForm, pageText, postForm } from '../hosted-pages/pages';
import { queryRows } from '../../src/db/sql';
import { sqlTransaction } from '../../src/db/sql-transaction';
import { finishTestClockAdvance } from '../../src/test-clocks';

// Test clocks over HTTP, in real time, on the suite's Temporal dev server (no time skipping): the
// workflows of a clock's customers wait on the clock, and each advance runs what falls due, in order.

const DAY_S = 86_400;
const HOUR_S = 3_600;
const seconds = (isoDate: string) => Date.parse(isoDate) / 1000;

let app: TestApp;
let api: ApiClient;
let other: ApiClient;
let accountId: string;
let worker: Awaited<ReturnType<typeof startTestWorker>>;

beforeAll(async () => {
  ({ app, worker, api, accountId } = await startWorkerApp('test-clocks', { paymentPlans: true, name: 'Clocks Co' }));
  other = apiClient(app.baseUrl, (await createTestAccount(app.prisma, { name: 'Other' })).apiKey);
}, 60_000);

afterAll(async () => {
  await worker?.stop();
  await app?.close();
});

async function createClock(frozenTime: number, client = api) {
  return expectStatus(
    await client.post('/test-helpers/test-clocks', { frozen_time: frozenTime, name: 'Scenario' }),
    201,
    'POST /test-helpers/test-clocks',
  );
}

/** Advances the clock and waits until it is ready again; answers the clock. */
async function advance(clockId: string, frozenTime: number, timeoutMs = 60_000) {
  const started = expectStatus(
    await api.post(`/test-helpers/test-clocks/${clockId}/advance`, { frozen_time: frozenTime }),
    202,
    'advance',
  );
  expect(started).toMatchObject({ id: clockId, status: 'advancing', frozen_time: frozenTime });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const clock = expectStatus(await api.get(`/test-helpers/test-clocks/${clockId}`), 200);
    if (clock.status === 'ready') return clock;
    if (Date.now() > deadline) throw new Error(`clock ${clockId} still advancing after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function customerOnClock(clockId: string, card?: string) {
  const customer = expectStatus(
    await api.post('/customers', { name: 'Clocked', test_clock: clockId }),
    201,
    'POST /customers',
  );
  const method = card ? await addPaymentMethod(api, customer.id, cardBody(card)) : null;
  return { customer, method };
}

async function invoicesOf(subscriptionId: string) {
  const page = expectStatus(await api.get(`/invoices?subscription=${subscriptionId}&take=100`), 200);
  return (page.data as { period_start: number }[]).sort((a, b) => a.period_start - b.period_start) as any[];
}

async function eventsAbout(id: string) {
  const events = await app.prisma.event.findMany({ where: { accountId }, orderBy: { seq: 'asc' } });
  return events.filter((event) => {
    const data = event.data as { id?: string; subscription?: string | null; payment_plan?: string };
    return data.id === id || data.subscription === id || data.payment_plan === id;
  });
}

describe('test clock resource', () => {
  it('creates, lists, retrieves; validates with 400 naming the field; another account sees 404', async () => {
    const frozen = seconds('2024-03-01T00:00:00Z');
    const clock = await createClock(frozen);
    expect(clock).toEqual({
      id: expect.stringMatching(/^clock_[a-zA-Z0-9]+$/),
      object: 'test_clock',
      frozen_time: frozen,
      status: 'ready',
      name: 'Scenario',
      created: expect.any(Number),
    });
    expect(Math.abs(clock.created - Date.now() / 1000)).toBeLessThan(60);
    expect(expectStatus(await api.get(`/test-helpers/test-clocks/${clock.id}`), 200)).toEqual(clock);
    const list = expectStatus(await api.get('/test-helpers/test-clocks?take=100'), 200);
    expect(list.data.map((row: { id: string }) => row.id)).toContain(clock.id);

    for (const [body, param] of [
      [{}, 'frozen_time'],
      [{ frozen_time: 'soon' }, 'frozen_time'],
      [{ frozen_time: 1.5 }, 'frozen_time'],
      [{ frozen_time: frozen, name: '' }, 'name'],
      [{ frozen_time: frozen, color: 'red' }, 'color'],
    ] as const) {
      const refused = await api.post('/test-helpers/test-clocks', body);
      expect(refused.status).toBe(400);
      expect(refused.body.error.param).toBe(param);
    }
    const backwards = await api.post(`/test-helpers/test-clocks/${clock.id}/advance`, { frozen_time: frozen - 1 });
    expect(backwards.status).toBe(400);
    expect(backwards.body.error.param).toBe('frozen_time');
    // Two years at most without subscriptions or plans.
    const tooFar = await api.post(`/test-helpers/test-clocks/${clock.id}/advance`, {
      frozen_time: frozen + 731 * DAY_S,
    });
    expect(tooFar.status).toBe(400);
    expect(tooFar.body.error.param).toBe('frozen_time');
    expect((await api.post(`/test-helpers/test-clocks/${clock.id}/advance`, {})).body.error.param).toBe('frozen_time');
    // A malformed id is an unknown one (decisions.md §17).
    expect((await api.get('/test-helpers/test-clocks/nope')).status).toBe(404);

    // Isolation: another account's clock does not exist for it, and its customers cannot take it.
    expect((await other.get(`/test-helpers/test-clocks/${clock.id}`)).status).toBe(404);
    expect(
      (await other.post(`/test-helpers/test-clocks/${clock.id}/advance`, { frozen_time: frozen + DAY_S })).status,
    ).toBe(404);
    expect((await other.delete(`/test-helpers/test-clocks/${clock.id}`)).status).toBe(404);
    const otherList = expectStatus(await other.get('/test-helpers/test-clocks'), 200);
    expect(otherList.data.map((row: { id: string }) => row.id)).not.toContain(clock.id);
    const stolen = await other.post('/customers', { name: 'Mallory', test_clock: clock.id });
    expect(stolen.status).toBe(404);
    expect(stolen.body.error.param).toBe('test_clock');
    expect(expectStatus(await api.get(`/test-helpers/test-clocks/${clock.id}`), 200)).toMatchObject({
      frozen_time: frozen,
      status: 'ready',
    });

    // A customer on the clock is created at its time and says which clock it runs on.
    const { customer } = await customerOnClock(clock.id);
    expect(customer).toMatchObject({ test_clock: clock.id, created: frozen });
    expect((await api.post('/customers', { name: 'Plain' })).body.test_clock).toBeNull();
    // Immutable: PATCH does not take it.
    const patched = await api.patch(`/customers/${customer.id}`, { test_clock: null });
    expect(patched.status).toBe(400);
    expect(patched.body.error.param).toBe('test_clock');

    // An advance with nothing on the clock is ready at once.
    const ready = await advance(clock.id, frozen + 30 * DAY_S);
    expect(ready).toMatchObject({ frozen_time: frozen + 30 * DAY_S, status: 'ready' });
  });

  it('answers 409 test_clock_advancing for changes to its objects while it advances', async () => {
    const frozen = seconds('2024-05-01T12:00:00Z');
    const clock = await createClock(frozen);
    const { customer, method } = await customerOnClock(clock.id, CARDS.succeeds);
    const price = await recurringPrice(api);
    const subscription = expectStatus(
      await api.post('/subscriptions', {
        customer: customer.id,
        items: [{ price, quantity: 1 }],
        trial_days: 0,
        start_date: frozen,
        default_payment_method: method!.id,
      }),
      201,
    );
    const plan = expectStatus(
      await api.post('/payment-plans', {
        customer: customer.id,
        total_amount: 400,
        currency: 'USD',
        installments_count: 4,
        interval: 'week',
      }),
      201,
    );

    // Held in `advancing` by hand, so the check does not race a fast advance.
    await app.prisma.testClock.update({ where: { id: clock.id }, data: { status: 'advancing' } });
    try {
      for (const response of [
        await api.post(`/subscriptions/${subscription.id}/pause`),
        await api.patch(`/subscriptions/${subscription.id}`, { cancel_at_period_end: true }),
        await api.delete(`/subscriptions/${subscription.id}`),
        await api.post('/subscriptions', {
          customer: customer.id,
          items: [{ price, quantity: 1 }],
          trial_days: 0,
          start_date: frozen,
        }),
        await api.post(`/payment-plans/${plan.id}/cancel`),
        await api.post(`/payment-plans/${plan.id}/payments`, { external: true }),
        await api.post('/payment-plans', {
          customer: customer.id,
          total_amount: 400,
          currency: 'USD',
          installments_count: 4,
          interval: 'week',
        }),
        await api.post(`/test-helpers/test-clocks/${clock.id}/advance`, { frozen_time: frozen + DAY_S }),
      ]) {
        expect(response.status).toBe(409);
        expect(response.body.error.code).toBe('test_clock_advancing');
      }
    } finally {
      await app.prisma.testClock.update({ where: { id: clock.id }, data: { status: 'ready' } });
    }

    // Deleting the clock cancels what hangs on it; the clock is gone, its customers take nothing new.
    expect(expectStatus(await api.delete(`/test-helpers/test-clocks/${clock.id}`), 200)).toEqual({
      id: clock.id,
      object: 'test_clock',
      deleted: true,
    });
    expect((await api.get(`/test-helpers/test-clocks/${clock.id}`)).status).toBe(404);
    expect(expectStatus(await api.get(`/subscriptions/${subscription.id}`), 200)).toMatchObject({
      status: 'canceled',
      canceled_at: frozen,
    });
    expect(expectStatus(await api.get(`/payment-plans/${plan.id}`), 200)).toMatchObject({ status: 'canceled' });
    const refused = await api.post('/subscriptions', {
      customer: customer.id,
      items: [{ price, quantity: 1 }],
      trial_days: 0,
      start_date: frozen,
    });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('test_clock_deleted');
    const invoice = await api.post('/invoices', {
      customer: customer.id,
      lines: [{ description: 'Late', amount: 100 }],
    });
    expect(invoice.status).toBe(409);
    expect(invoice.body.error.code).toBe('test_clock_deleted');
  });

  it("is marked ready by an advance's workflow that finishes before the advance's transaction commits", async () => {
    // POST .../advance starts the clock's workflow inside the transaction that marks the clock advancing: under load
    // the workflow (nothing on the clock here: at once) can finish before that commit, and its mark must still land.
    const frozen = seconds('2025-03-01T00:00:00Z');
    const clock = await createClock(frozen);
    const target = frozen + DAY_S;
    let commit!: () => void;
    const committing = new Promise<void>((resolve) => (commit = resolve));
    let advancerPid = 0;
    const advancing = sqlTransaction(app.prisma, async (tx) => {
      advancerPid = (
        await queryRows<{ pid: number }>(
          tx,
          {
            name: 'test_clock_advance_uncommitted',
            text: `UPDATE test_clocks SET status = 'advancing', frozen_time = $2 WHERE id = $1 RETURNING pg_backend_pid() AS pid`,
          },
          [clock.id, new Date(target * 1000)],
        )
      )[0]!.pid;
      await committing;
    });
    while (advancerPid === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    // What the workflow's last activity does, while the advance has not committed yet.
    let finished = false;
    const finishing = finishTestClockAdvance(app.prisma, clock.id, target * 1000).then(() => (finished = true));
    const waitsForAdvance = async () =>
      (
        await queryRows(
          app.prisma,
          {
            name: 'test_blocked_by_advance',
            text: 'SELECT pid FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))',
          },
          [advancerPid],
        )
      ).length > 0;
    while (!finished && !(await waitsForAdvance())) await new Promise((resolve) => setTimeout(resolve, 20));
    commit();
    await advancing;
    await finishing;
    expect(expectStatus(await api.get(`/test-helpers/test-clocks/${clock.id}`), 200)).toMatchObject({
      frozen_time: target,
      status: 'ready',
    });
  });

  it('does not exist when BILLING_TEST_MODE is off', async () => {
    const saved = process.env.BILLING_TEST_MODE;
    process.env.BILLING_TEST_MODE = 'false';
    const plain = await startTestApp().finally(() => {
      if (saved === undefined) delete process.env.BILLING_TEST_MODE;
      else process.env.BILLING_TEST_MODE = saved;
    });
    try {
      const client = apiClient(plain.baseUrl, (await createTestAccount(plain.prisma)).apiKey);
      expect(
        (await client.post('/test-helpers/test-clocks', { frozen_time: seconds('2024-01-01T00:00:00Z') })).status,
      ).toBe(404);
      expect((await client.get('/test-helpers/test-clocks')).status).toBe(404);
    } finally {
      await plain.close();
    }
  });
});

describe('a subscription on a test clock', () => {
  it('bills a year of monthly renewals in a few advances: 13 paid invoices on the anchor day (month ends, leap year)', async () => {
    const started = Date.now();
    const anchor = seconds('2024-01-31T10:00:00Z');
    const clock = await createClock(anchor);
    const { customer, method } = await customerOnClock(clock.id, CARDS.succeeds);
    const price = await recurringPrice(api, { unitAmount: 1500 });
    const subscription = expectStatus(
      await api.post('/subscriptions', {
        customer: customer.id,
        items: [{ price, quantity: 1 }],
        trial_days: 0,
        start_date: anchor,
        default_payment_method: method!.id,
      }),
      201,
    );
    expect(subscription).toMatchObject({
      status: 'active',
      created: anchor,
      start_date: anchor,
      current_period_start: anchor,
    });

    // Two months at most per advance (two of the longest interval): 3 months is refused.
    const tooFar = await api.post(`/test-helpers/test-clocks/${clock.id}/advance`, {
      frozen_time: seconds('2024-05-01T10:00:00Z'),
    });
    expect(tooFar.status).toBe(400);
    expect(tooFar.body.error.param).toBe('frozen_time');

    // Two months per advance (Sep 30 + 2 months is Nov 30, then Jan 30): seven calls reach the 13th invoice.
    for (const day of [
      '2024-03-31',
      '2024-05-31',
      '2024-07-31',
      '2024-09-30',
      '2024-11-30',
      '2025-01-30',
      '2025-01-31',
    ]) {
      const to = `${day}T10:00:00Z`;
      await advance(clock.id, seconds(to));
    }

    const expectedStarts = [
      '2024-01-31',
      '2024-02-29',
      '2024-03-31',
      '2024-04-30',
      '2024-05-31',
      '2024-06-30',
      '2024-07-31',
      '2024-08-31',
      '2024-09-30',
      '2024-10-31',
      '2024-11-30',
      '2024-12-31',
      '2025-01-31',
    ].map((day) => seconds(`${day}T10:00:00Z`));
    const invoices = await invoicesOf(subscription.id);
    expect(invoices.map((invoice) => invoice.period_start)).toEqual(expectedStarts);
    for (const invoice of invoices) {
      // Dated when the clock reached the renewal, paid then, with the test card.
      expect(invoice).toMatchObject({ status: 'paid', created: invoice.period_start, amount_paid: 1500 });
      expect(invoice.status_transitions.paid_at).toBe(invoice.period_start);
    }
    expect(expectStatus(await api.get(`/subscriptions/${subscription.id}`), 200)).toMatchObject({
      status: 'active',
      current_period_start: expectedStarts[12],
      current_period_end: seconds('2025-02-28T10:00:00Z'),
    });
    // Events follow the clock too: none is dated by the wall clock.
    const events = await eventsAbout(subscription.id);
    expect(events.filter((event) => event.type === 'invoice.payment_succeeded')).toHaveLength(13);
    for (const event of events)
      expect(event.createdAt.getTime()).toBeLessThanOrEqual(Date.parse('2025-01-31T10:00:00Z'));
    expect(events[0]!.createdAt.getTime()).toBe(anchor * 1000);
    expect(Date.now() - started).toBeLessThan(60_000);
  }, 120_000);

  it('runs the dunning retries (days 1, 3, 5) on the clock, then the configured outcome with reason dunning', async () => {
    const start = seconds('2024-06-10T08:00:00Z');
    const clock = await createClock(start);
    const { customer, method } = await customerOnClock(clock.id, CARDS.declined);
    const price = await recurringPrice(api);
    const subscription = expectStatus(
      await api.post('/subscriptions', {
        customer: customer.id,
        items: [{ price, quantity: 1 }],
        trial_days: 0,
        start_date: start,
        default_payment_method: method!.id,
      }),
      201,
    );
    const failures = async () =>
      (await eventsAbout(subscription.id)).filter((event) => event.type === 'invoice.payment_failed');
    expect(await failures()).toHaveLength(1);

    await advance(clock.id, start + DAY_S + HOUR_S);
    expect(await failures()).toHaveLength(2);
    // Its invoice in dunning: past_due (decisions.md §7).
    expect(expectStatus(await api.get(`/subscriptions/${subscription.id}`), 200).status).toBe('past_due');
    await advance(clock.id, start + 6 * DAY_S);

    const failed = await failures();
    // The first charge, then the three retries on days 1, 3 and 5 of dunning, each dated then.
    expect(failed.map((event) => event.createdAt.getTime() / 1000)).toEqual([
      start,
      start + DAY_S,
      start + 3 * DAY_S,
      start + 5 * DAY_S,
    ]);
    const canceled = expectStatus(await api.get(`/subscriptions/${subscription.id}`), 200);
    expect(canceled).toMatchObject({ status: 'canceled', canceled_at: start + 5 * DAY_S });
    const last = (await eventsAbout(subscription.id)).at(-1)!;
    expect(last.type).toBe('subscription.canceled');
    expect(last.data).toMatchObject({ status: 'canceled', reason: 'dunning' });
    expect(last.createdAt.getTime()).toBe((start + 5 * DAY_S) * 1000);
  }, 90_000);
});

describe('dates judged by the clock', () => {
  it("ends a trial, takes a cancel_at in the clock's future (the wall clock's past) and cancels then", async () => {
    const start = seconds('2023-03-01T00:00:00Z');
    const clock = await createClock(start);
    const { customer, method } = await customerOnClock(clock.id, CARDS.succeeds);
    const price = await recurringPrice(api);
    const body = {
      customer: customer.id,
      items: [{ price, quantity: 1 }],
      start_date: start,
      default_payment_method: method!.id,
    };
    const subscription = expectStatus(await api.post('/subscriptions', { ...body, trial_days: 14 }), 201);
    expect(subscription).toMatchObject({ status: 'trialing', trial_start: start, trial_end: start + 14 * DAY_S });
    // end_date and cancel_at are judged against the clock: before its time is refused, after it is taken.
    const past = await api.post('/subscriptions', { ...body, trial_days: 0, end_date: start - DAY_S });
    expect(past.status).toBe(400);
    expect(past.body.error.param).toBe('end_date');

    await advance(clock.id, start + 15 * DAY_S);
    const [invoice] = await invoicesOf(subscription.id);
    expect(invoice).toMatchObject({ status: 'paid', period_start: start + 14 * DAY_S, created: start + 14 * DAY_S });
    expect(expectStatus(await api.get(`/subscriptions/${subscription.id}`), 200)).toMatchObject({ status: 'active' });

    const cancelAt = start + 20 * DAY_S;
    expect(
      expectStatus(await api.patch(`/subscriptions/${subscription.id}`, { cancel_at: cancelAt }), 200),
    ).toMatchObject({ cancel_at: cancelAt });
    const early = await api.patch(`/subscriptions/${subscription.id}`, { cancel_at: start + 10 * DAY_S });
    expect(early.status).toBe(400);
    expect(early.body.error.param).toBe('cancel_at');
    await advance(clock.id, start + 21 * DAY_S);
    expect(expectStatus(await api.get(`/subscriptions/${subscription.id}`), 200)).toMatchObject({
      status: 'canceled',
      ended_at: cancelAt,
    });
    const canceled = (await eventsAbout(subscription.id)).at(-1)!;
    expect(canceled.type).toBe('subscription.canceled');
    expect(canceled.createdAt.getTime()).toBe(cancelAt * 1000);
  }, 90_000);
});

describe("a clock customer's own invoices", () => {
  it("are created, finalized, paid, refunded, credited and voided at the clock's time; due_date is judged by the clock; 409 while it advances; another account gets 404", async () => {
    const frozen = seconds('2023-06-01T09:00:00Z');
    const clock = await createClock(frozen);
    const { customer, method } = await customerOnClock(clock.id, CARDS.succeeds);
    const lines = [{ description: 'Setup', amount: 2500 }];

    // In the wall clock's past, in the clock's future: taken. Before the clock's time: 400 naming due_date.
    const draft = expectStatus(
      await api.post('/invoices', { customer: customer.id, lines, due_date: frozen + 10 * DAY_S }),
      201,
    );
    expect(draft).toMatchObject({ created: frozen, due_date: frozen + 10 * DAY_S, period_start: frozen });
    const late = await api.post('/invoices', { customer: customer.id, lines, due_date: frozen - DAY_S });
    expect(late.status).toBe(400);
    expect(late.body.error.param).toBe('due_date');

    await advance(clock.id, frozen + 2 * DAY_S);
    const finalized = expectStatus(await api.post(`/invoices/${draft.id}/finalize`), 200);
    expect(finalized.status_transitions.finalized_at).toBe(frozen + 2 * DAY_S);
    const paid = expectStatus(await api.put(`/invoices/${draft.id}`, { payment_method: method!.id }), 200);
    expect(paid).toMatchObject({ status: 'paid' });
    expect(paid.status_transitions.paid_at).toBe(frozen + 2 * DAY_S);
    const refund = expectStatus(await api.post(`/invoices/${draft.id}/refund`, { amount: 500 }), 201);
    expect(refund.created).toBe(frozen + 2 * DAY_S);
    await advance(clock.id, frozen + 3 * DAY_S);
    const note = expectStatus(
      await api.post('/credit-notes', {
        invoice: draft.id,
        amount: 300,
        reason: 'order_change',
        refund_to: 'customer_balance',
      }),
      201,
    );
    expect(note.created).toBe(frozen + 3 * DAY_S);
    const events = await eventsAbout(draft.id);
    expect(events.map((event) => [event.type, event.createdAt.getTime() / 1000])).toEqual(
      expect.arrayContaining([
        ['invoice.created', frozen],
        ['invoice.finalized', frozen + 2 * DAY_S],
        ['invoice.payment_succeeded', frozen + 2 * DAY_S],
      ]),
    );

    const toVoid = expectStatus(await api.post('/invoices', { customer: customer.id, lines }), 201);
    await app.prisma.testClock.update({ where: { id: clock.id }, data: { status: 'advancing' } });
    try {
      for (const response of [
        await api.post('/invoices', { customer: customer.id, lines }),
        await api.post(`/invoices/${toVoid.id}/finalize`),
        await api.put(`/invoices/${toVoid.id}`),
        await api.delete(`/invoices/${toVoid.id}`),
        await api.post('/credit-notes', {
          invoice: draft.id,
          amount: 100,
          reason: 'order_change',
          refund_to: 'outside',
        }),
      ]) {
        expect(response.status).toBe(409);
        expect(response.body.error.code).toBe('test_clock_advancing');
      }
      // Another account's request names this account's objects: 404, whatever their clock is doing.
      for (const response of [
        await other.post('/invoices', { customer: customer.id, lines }),
        await other.post(`/invoices/${toVoid.id}/finalize`),
        await other.delete(`/invoices/${toVoid.id}`),
        await other.post('/credit-notes', {
          invoice: draft.id,
          amount: 100,
          reason: 'order_change',
          refund_to: 'outside',
        }),
      ]) {
        expect(response.status).toBe(404);
      }
    } finally {
      await app.prisma.testClock.update({ where: { id: clock.id }, data: { status: 'ready' } });
    }
    const voided = expectStatus(await api.delete(`/invoices/${toVoid.id}`), 200);
    expect(voided.status_transitions.voided_at).toBe(frozen + 3 * DAY_S);
  }, 90_000);
});

describe("a clock customer's hosted invoice page", () => {
  it("pays at the clock's time; while the clock advances it says to try again and charges nothing", async () => {
    const frozen = seconds('2023-09-01T08:00:00Z');
    const clock = await createClock(frozen);
    const { customer } = await customerOnClock(clock.id);
    const draft = expectStatus(
      await api.post('/invoices', { customer: customer.id, lines: [{ description: 'Workshop', amount: 9900 }] }),
      201,
    );
    const invoice = expectStatus(await api.post(`/invoices/${draft.id}/finalize`), 200);
    const path = hostedPath(invoice);
    const card = { name: 'Clocked', number: CARDS.succeeds, exp: EXPIRY, cvc: '123' };

    await app.prisma.testClock.update({ where: { id: clock.id }, data: { status: 'advancing' } });
    try {
      const held = await postForm(app.baseUrl, `${path}/pay`, { ...(await pageForm(app.baseUrl, path)), ...card });
      expect(held.status).toBe(409);
      expect(await pageText(held)).toContain('Nothing was charged: reload the page in a moment and pay then.');
    } finally {
      await app.prisma.testClock.update({ where: { id: clock.id }, data: { status: 'ready' } });
    }
    expect(expectStatus(await api.get(`/transactions?invoice=${invoice.id}`), 200).data).toEqual([]);

    await advance(clock.id, frozen + DAY_S);
    const paid = await postForm(app.baseUrl, `${path}/pay`, { ...(await pageForm(app.baseUrl, path)), ...card });
    expect(paid.status).toBe(303);
    expect(expectStatus(await api.get(`/invoices/${invoice.id}`), 200)).toMatchObject({
      status: 'paid',
      status_transitions: { finalized_at: frozen, paid_at: frozen + DAY_S },
    });
  }, 90_000);
});

describe('card expiry judged by the clock', () => {
  it('a card valid through December pays the December invoice and is declined expired_card at the January renewal on the clock; at the real time without one', async () => {
    const expYear = new Date().getUTCFullYear() + 1;
    const start = Date.UTC(expYear, 11, 1) / 1000;
    const clock = await createClock(start);
    const customer = expectStatus(await api.post('/customers', { name: 'Expiring', test_clock: clock.id }), 201);
    const card = await addPaymentMethod(
      api,
      customer.id,
      cardBody(CARDS.succeeds, { card: { number: CARDS.succeeds, exp_month: 12, exp_year: expYear, cvc: '123' } }),
    );
    const price = await recurringPrice(api);
    const subscription = expectStatus(
      await api.post('/subscriptions', {
        customer: customer.id,
        items: [{ price, quantity: 1 }],
        start_date: start,
        trial_days: 0,
      }),
      201,
    );
    expect((await invoicesOf(subscription.id))[0]).toMatchObject({ status: 'paid', payment_method: card.id });

    await advance(clock.id, Date.UTC(expYear + 1, 0, 1, 12) / 1000);
    const [, renewal] = await invoicesOf(subscription.id);
    expect(renewal).toMatchObject({
      status: 'open',
      attempt_count: 1,
      period_start: Date.UTC(expYear + 1, 0, 1) / 1000,
    });
    const attempts = expectStatus(await api.get(`/transactions?invoice=${renewal.id}`), 200).data;
    expect(attempts.map((t: { status: string; failure_code: string | null }) => [t.status, t.failure_code])).toEqual([
      ['failed', 'expired_card'],
    ]);
    // Another account sees none of it.
    expect((await other.get(`/invoices/${renewal.id}`)).status).toBe(404);
    expect((await other.get(`/transactions?invoice=${renewal.id}`)).body.data ?? []).toEqual([]);

    // Without a clock, the same card is judged at the real time: it pays today, and is declined once past its month.
    const walled = expectStatus(await api.post('/customers', { name: 'Wall clock' }), 201);
    const walledCard = await addPaymentMethod(
      api,
      walled.id,
      cardBody(CARDS.succeeds, { card: { number: CARDS.succeeds, exp_month: 12, exp_year: expYear, cvc: '123' } }),
    );
    const first = expectStatus(
      await api.post('/invoices', { customer: walled.id, lines: [{ description: 'Now', amount: 500 }] }),
      201,
    );
    expect(expectStatus(await api.put(`/invoices/${first.id}`), 200)).toMatchObject({ status: 'paid' });
    // As the years pass: the stored expiry is now behind the wall clock (the API refuses to save an expired card).
    const lastYear = new Date().getUTCFullYear() - 1;
    await app.prisma.paymentMethod.update({ where: { id: walledCard.id }, data: { cardExpYear: lastYear } });
    const second = expectStatus(
      await api.post('/invoices', { customer: walled.id, lines: [{ description: 'Later', amount: 500 }] }),
      201,
    );
    expect(expectStatus(await api.put(`/invoices/${second.id}`), 200)).toMatchObject({
      status: 'open',
      attempt_count: 1,
    });
    const declined = expectStatus(await api.get(`/transactions?invoice=${second.id}`), 200).data;
    expect(declined.map((t: { failure_code: string | null }) => t.failure_code)).toEqual(['expired_card']);
  }, 90_000);
});

describe('a payment plan on a test clock', () => {
  it("a weekly plan with a missed installment goes past_due, defaults after the account's days, and a payment reactivates it", async () => {
    const start = seconds('2024-02-26T09:00:00Z');
    const clock = await createClock(start);
    const { customer } = await customerOnClock(clock.id);
    const plan = expectStatus(
      await api.post('/payment-plans', {
        customer: customer.id,
        total_amount: 600,
        currency: 'USD',
        installments_count: 6,
        interval: 'week',
      }),
      201,
    );
    expect(plan).toMatchObject({ status: 'pending', created: start });
    // The deposit is collected elsewhere; without a card, installment 2 falls due unpaid on day 7.
    const deposit = expectStatus(await api.post(`/payment-plans/${plan.id}/payments`, { external: true }), 201);
    expect(deposit).toMatchObject({ status: 'succeeded', installments: [1], created: start });

    await advance(clock.id, start + 8 * DAY_S);
    const pastDue = expectStatus(await api.get(`/payment-plans/${plan.id}`), 200);
    expect(pastDue).toMatchObject({ status: 'past_due', past_due_at: start + 7 * DAY_S, amount_overdue: 100 });

    await advance(clock.id, start + 21 * DAY_S + HOUR_S);
    const defaulted = expectStatus(await api.get(`/payment-plans/${plan.id}`), 200);
    expect(defaulted).toMatchObject({ status: 'defaulted', defaulted_at: start + 21 * DAY_S, amount_overdue: 300 });
    expect(defaulted.defaulted_at - pastDue.past_due_at).toBe(14 * DAY_S);

    const payment = expectStatus(await api.post(`/payment-plans/${plan.id}/payments`, { external: true }), 201);
    expect(payment).toMatchObject({
      status: 'succeeded',
      installments: [2, 3, 4],
      created: start + 21 * DAY_S + HOUR_S,
    });
    expect(expectStatus(await api.get(`/payment-plans/${plan.id}`), 200)).toMatchObject({
      status: 'active',
      amount_overdue: 0,
      defaulted_at: null,
    });
    const events = (await eventsAbout(plan.id)).filter((event) => event.type.startsWith('payment_plan.'));
    expect(
      events
        .map((event) => [event.type, event.createdAt.getTime() / 1000])
        .filter(([type]) =>
          ['payment_plan.past_due', 'payment_plan.defaulted', 'payment_plan.reactivated'].includes(type as string),
        ),
    ).toEqual([
      ['payment_plan.past_due', start + 7 * DAY_S],
      ['payment_plan.defaulted', start + 21 * DAY_S],
      ['payment_plan.reactivated', start + 21 * DAY_S + HOUR_S],
    ]);
  }, 90_000);
});

describe('a clock with many subscriptions', () => {
  it('advances 100 monthly subscriptions one month (time reported in the README)', async () => {
    const start = seconds('2024-04-15T00:00:00Z');
    const clock = await createClock(start);
    const price = await recurringPrice(api, { unitAmount: 900 });
    const ids: string[] = [];
    for (let index = 0; index < 100; index += 10) {
      // allSettled: a failure leaves no request in flight behind the test.
      const batch = await Promise.allSettled(
        Array.from({ length: 10 }, async () => {
          const { customer, method } = await customerOnClock(clock.id, CARDS.succeeds);
          const body = {
            customer: customer.id,
            items: [{ price, quantity: 1 }],
            trial_days: 0,
            start_date: start,
            default_payment_method: method!.id,
          };
          // A loaded machine may answer 503 temporal_unavailable (Temporal slower than the API's 2 s probe): retried, as Retry-After says.
          for (let attempt = 1; ; attempt += 1) {
            const created = await api.post('/subscriptions', body);
            if (created.status === 503 && attempt < 5) {
              await new Promise((resolve) => setTimeout(resolve, 1000));
              continue;
            }
            // 202: created, its first charge still running when the creation wait ran out (a loaded machine).
            if (created.status === 202) return created.body.id as string;
            return expectStatus(created, 201, 'POST /subscriptions').id as string;
          }
        }),
      );
      for (const result of batch) {
        if (result.status === 'rejected') throw result.reason;
        ids.push(result.value);
      }
    }
    const began = Date.now();
    await advance(clock.id, start + 31 * DAY_S, 180_000);
    const tookMs = Date.now() - began;
    // How many times the clock's workflow listed its workflows: 2 when every one answered the first signal (a second listing finds nothing new).
    const history = await app.temporal.workflow.getHandle(`test-clock:${clock.id}`).fetchHistory();
    const listings = history.events!.filter(
      (event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'listTestClockWorkflows',
    ).length;
    console.log(`test clock: 100 monthly subscriptions advanced one month in ${tookMs} ms (${listings} listings)`);
    const renewed = await app.prisma.invoice.count({
      where: {
        subscriptionId: { in: ids },
        status: 'paid',
        periodStart: new Date(seconds('2024-05-15T00:00:00Z') * 1000),
      },
    });
    expect(renewed).toBe(100);
  }, 300_000);
});
