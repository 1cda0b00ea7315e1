import { historyView } from '../support/history';
import { HOUR_MS } from '../../src/lib/durations';
import { subscriptionWorkflowId } from '../../workflows/subscription-messages';
import { CARDS, customerWithCard, gatewayCharges } from '../support/payments';
import {
  advanceBy,
  advanceTo,
  createSubscription,
  DAY_MS,
  expectStatus,
  invoicesOf,
  recordHistories,
  recurringPrice,
  settled,
  startSubscriptionWorld,
  subscriptionEvents,
  subscriptionState,
  unix,
  withFirstTaskDelayed,
  workflowHandle,
  type SubscriptionWorld,
} from '../support/subscriptions';

// Every scenario runs on its own time-skipping Temporal environment, through the HTTP API, and
// records its workflow histories for the replay test (test/subscriptions/subscription-replay.test.ts).

async function inWorld(name: string, scenario: (world: SubscriptionWorld) => Promise<string[]>): Promise<void> {
  const world = await startSubscriptionWorld();
  try {
    const subscriptionIds = await scenario(world);
    for (const [index, id] of subscriptionIds.entries())
      await recordHistories(world, id, subscriptionIds.length > 1 ? `${name}-${index + 1}` : name);
  } finally {
    await world.close();
  }
}

async function customerAndPrice(
  world: SubscriptionWorld,
  options: Parameters<typeof recurringPrice>[1] = {},
  card: string = CARDS.succeeds,
) {
  const { customer } = await customerWithCard(world.api, card);
  return { customer: customer.id as string, price: await recurringPrice(world.api, options) };
}

/** Two subscriptions the API creates now, each billing at once: one on a card that pays, one on a card that declines. */
async function createdPayingAndDeclining(world: SubscriptionWorld, paidAmount: number, declinedAmount: number) {
  const paying = await customerAndPrice(world, { unitAmount: paidAmount });
  const declining = await customerAndPrice(world, { unitAmount: declinedAmount }, CARDS.declined);
  const start = unix(await world.env.currentTimeMs());
  const subscribe = (customer: string, price: string) =>
    createSubscription(world.api, { customer, items: [{ price, quantity: 1 }], trial_days: 0, start_date: start });
  return {
    start,
    paid: await subscribe(paying.customer, paying.price),
    declined: await subscribe(declining.customer, declining.price),
  };
}

/**
 * The workflow of a subscription the API created with SUBSCRIPTION_FIRST_TASK=first-step and nothing due
 * before `atMs` has not run: its first task waits on a start delay until then (docs/operations.md), so no
 * timer, activity or task is in its history. The delay is counted from the server's time the API read before
 * its start, so the first task is due at `atMs` plus at most the creation's own time (`creationMs`, on the
 * server's clock; a second more for the test server, whose time read and start's clock differ by milliseconds).
 */
async function expectFirstTaskAt(world: SubscriptionWorld, subscriptionId: string, atMs: number, creationMs: number) {
  const handle = workflowHandle(world, subscriptionId);
  const executionTime = (await handle.describe()).executionTime!.getTime();
  expect(executionTime).toBeGreaterThanOrEqual(atMs);
  expect(executionTime).toBeLessThanOrEqual(atMs + creationMs + 1_000);
  const view = await historyView(handle);
  expect(view).toMatchObject({ workflowTasks: 0, timers: [], activities: [] });
  expect(view.startDelayMs).toBeGreaterThan(0);
  return view;
}

/** Types of the invoice events of each invoice, in the order they were written. */
function invoiceEventTypes(events: { type: string; data: unknown }[]) {
  const byInvoice = new Map<string, string[]>();
  for (const event of events) {
    if (!event.type.startsWith('invoice.')) continue;
    const id = (event.data as { id: string }).id;
    byInvoice.set(id, [...(byInvoice.get(id) ?? []), event.type]);
  }
  return [...byInvoice.values()];
}

const getSubscription = async (world: SubscriptionWorld, id: string) =>
  expectStatus(await world.api.get(`/subscriptions/${id}`), 200, 'GET');

describe('subscription billing on Temporal (time skipping)', () => {
  it('a monthly subscription anchored on Jan 31 2028 bills 13 paid invoices on month ends through the leap year, across a continue-as-new', async () => {
    await inWorld('monthly-13-local-steps', async (world) => {
      const { customer, price } = await customerAndPrice(world, { unitAmount: 1999 });
      const anchor = Date.parse('2028-01-31T12:00:00.000Z');
      const subscription = await createSubscription(world.api, {
        customer,
        items: [{ price, quantity: 1 }],
        trial_days: 0,
        start_date: unix(anchor),
      });
      expect(subscription).toMatchObject({
        status: 'scheduled',
        billing_cycle_anchor: unix(anchor),
        start_date: unix(anchor),
        latest_invoice: null,
      });

      await advanceTo(world, subscription.id, Date.parse('2028-02-01T00:00:00.000Z'));
      expect(await invoicesOf(world, subscription.id)).toHaveLength(1);
      await advanceTo(world, subscription.id, Date.parse('2029-02-01T00:00:00.000Z'));

      const invoices = await invoicesOf(world, subscription.id);
      expect(invoices.map((invoice) => invoice.periodStart.toISOString().slice(0, 10))).toEqual([
        '2028-01-31',
        '2028-02-29',
        '2028-03-31',
        '2028-04-30',
        '2028-05-31',
        '2028-06-30',
        '2028-07-31',
        '2028-08-31',
        '2028-09-30',
        '2028-10-31',
        '2028-11-30',
        '2028-12-31',
        '2029-01-31',
      ]);
      for (const [index, invoice] of invoices.entries()) {
        expect(invoice).toMatchObject({
          status: 'paid',
          total: 1999n,
          amountPaid: 1999n,
          subscriptionId: subscription.id,
        });
        expect(invoice.billingReason).toBe(index === 0 ? 'subscription_create' : 'subscription_cycle');
        if (index > 0) expect(invoices[index - 1]!.periodEnd).toEqual(invoice.periodStart);
      }
      expect(await gatewayCharges(world.app.prisma, world.accountId)).toBe(13);
      const events = await subscriptionEvents(world, subscription.id);
      expect(invoiceEventTypes(events)).toEqual(
        Array(13).fill(['invoice.created', 'invoice.finalized', 'invoice.payment_succeeded']),
      );

      const current = await getSubscription(world, subscription.id);
      expect(current).toMatchObject({
        status: 'active',
        latest_invoice: invoices[12]!.id,
        current_period_start: unix(Date.parse('2029-01-31T12:00:00.000Z')),
        current_period_end: unix(Date.parse('2029-02-28T12:00:00.000Z')),
      });
      // Twelve renewals per run: the thirteenth ran in a second run that carried the state over.
      const state = await subscriptionState(world, subscription.id);
      expect(state).toMatchObject({
        invoicesIssued: 13,
        renewalsThisRun: 1,
        nextBillingAt: Date.parse('2029-02-28T12:00:00.000Z'),
      });
      const description = await workflowHandle(world, subscription.id).describe();
      expect(description.runId).not.toBe(description.raw.workflowExecutionInfo?.firstRunId);
      expect(description.memo).toEqual({ accountId: world.accountId, customerId: customer });
      return [subscription.id];
    });
  });

  it('a 14-day trial bills nothing, then charges the first period when it ends', async () => {
    await inWorld('trial-local-steps', async (world) => {
      const { customer, price } = await customerAndPrice(world);
      const now = await world.env.currentTimeMs();
      const subscription = await createSubscription(world.api, {
        customer,
        items: [{ price, quantity: 1 }],
        trial_days: 14,
        start_date: unix(now),
      });
      const trialEnd = subscription.trial_end * 1000;
      expect(subscription).toMatchObject({
        status: 'trialing',
        latest_invoice: null,
        billing_cycle_anchor: subscription.trial_end,
      });
      expect(subscription.trial_start - unix(now)).toBeLessThan(5);
      expect(trialEnd - subscription.trial_start * 1000).toBe(14 * DAY_MS);

      await advanceTo(world, subscription.id, trialEnd - HOUR_MS);
      expect(await invoicesOf(world, subscription.id)).toHaveLength(0);
      expect((await getSubscription(world, subscription.id)).status).toBe('trialing');

      await advanceTo(world, subscription.id, trialEnd + HOUR_MS);
      const [invoice] = await invoicesOf(world, subscription.id);
      expect(invoice).toMatchObject({
        status: 'paid',
        periodStart: new Date(trialEnd),
        billingReason: 'subscription_create',
      });
      expect(await getSubscription(world, subscription.id)).toMatchObject({
        status: 'active',
        latest_invoice: invoice!.id,
        current_period_start: unix(trialEnd),
      });

      const events = await subscriptionEvents(world, subscription.id);
      expect(events.map((event) => event.type)).toEqual([
        'subscription.created',
        'subscription.updated',
        'invoice.created',
        'invoice.finalized',
        'invoice.payment_succeeded',
        'subscription.updated',
      ]);
      // Webhook payloads know no `trialing`: it is sent as active.
      expect((events[0]!.data as { status: string }).status).toBe('active');
      return [subscription.id];
    });
  });

  it('a future start_date is scheduled, then starts and bills on that date', async () => {
    await inWorld('scheduled-start-local-steps', async (world) => {
      const { customer, price } = await customerAndPrice(world, { interval: 'week', intervalCount: 2 });
      const createdFrom = await world.env.currentTimeMs();
      const startAt = (unix(createdFrom) + 10 * 86_400) * 1000;
      const subscription = await withFirstTaskDelayed(() =>
        createSubscription(world.api, {
          customer,
          items: [{ price, quantity: 1 }],
          trial_days: 0,
          start_date: unix(startAt),
        }),
      );
      const creationMs = (await world.env.currentTimeMs()) - createdFrom;
      expect(subscription).toMatchObject({
        status: 'scheduled',
        start_date: unix(startAt),
        billing_cycle_anchor: unix(startAt),
      });
      // Nothing to do before the start date: with first-step, the workflow's first task waits for it (a start delay), not a timer.
      await expectFirstTaskAt(world, subscription.id, startAt, creationMs);

      await advanceTo(world, subscription.id, startAt - HOUR_MS);
      expect(await invoicesOf(world, subscription.id)).toHaveLength(0);
      expect(
        expectStatus(await world.api.get(`/subscriptions?status=scheduled`), 200).data.map((s: { id: string }) => s.id),
      ).toEqual([subscription.id]);

      await advanceTo(world, subscription.id, startAt + 15 * DAY_MS);
      const invoices = await invoicesOf(world, subscription.id);
      expect(invoices.map((invoice) => invoice.periodStart.getTime())).toEqual([startAt, startAt + 14 * DAY_MS]);
      expect(await getSubscription(world, subscription.id)).toMatchObject({ status: 'active' });
      return [subscription.id];
    });
  });

  it('end_date expires the subscription and nothing is billed after it', async () => {
    await inWorld('end-date', async (world) => {
      const { customer, price } = await customerAndPrice(world);
      const now = await world.env.currentTimeMs();
      const endAt = now + 70 * DAY_MS;
      const subscription = await createSubscription(world.api, {
        customer,
        items: [{ price, quantity: 1 }],
        trial_days: 0,
        start_date: unix(now),
        end_date: unix(endAt),
      });
      expect(subscription.end_date).toBe(unix(endAt));

      await advanceTo(world, subscription.id, endAt + 120 * DAY_MS);
      const invoices = await invoicesOf(world, subscription.id);
      expect(invoices).toHaveLength(3);
      expect(invoices.every((invoice) => invoice.periodStart.getTime() < endAt)).toBe(true);
      expect(await getSubscription(world, subscription.id)).toMatchObject({
        status: 'expired',
        ended_at: unix(endAt),
        canceled_at: null,
      });
      expect((await workflowHandle(world, subscription.id).describe()).status.name).toBe('COMPLETED');

      const [canceled] = (await subscriptionEvents(world, subscription.id)).filter(
        (event) => event.type === 'subscription.canceled',
      );
      expect(canceled!.data).toMatchObject({
        status: 'canceled',
        reason: 'requested',
        initiated_by: 'merchant',
        ended_at: unix(endAt),
      });
      expect((await world.api.post(`/subscriptions/${subscription.id}/pause`)).status).toBe(409);
      return [subscription.id];
    });
  });

  it('pause for 10 days then resume: nothing is billed while paused and the next bill moves by 10 days', async () => {
    await inWorld('pause-resume', async (world) => {
      const { customer, price } = await customerAndPrice(world);
      const now = await world.env.currentTimeMs();
      const subscription = await createSubscription(world.api, {
        customer,
        items: [{ price, quantity: 1 }],
        trial_days: 0,
        start_date: unix(now),
      });
      const originalNextBill = subscription.current_period_end * 1000;

      await advanceTo(world, subscription.id, originalNextBill - 5 * DAY_MS);
      const paused = expectStatus(await world.api.post(`/subscriptions/${subscription.id}/pause`), 200, 'pause');
      const pausedAt = paused.paused_at * 1000;
      expect(paused).toMatchObject({ status: 'paused' });
      expect((await world.api.post(`/subscriptions/${subscription.id}/pause`)).status).toBe(409);

      // The original billing date passes while paused: no invoice, no charge.
      await advanceTo(world, subscription.id, pausedAt + 10 * DAY_MS);
      expect(await invoicesOf(world, subscription.id)).toHaveLength(1);
      expect(await gatewayCharges(world.app.prisma, world.accountId)).toBe(1);

      const resumed = expectStatus(await world.api.post(`/subscriptions/${subscription.id}/resume`), 200, 'resume');
      const pausedMs = (await world.env.currentTimeMs()) - pausedAt;
      expect(Math.abs(pausedMs - 10 * DAY_MS)).toBeLessThan(HOUR_MS);
      expect(resumed).toMatchObject({ status: 'active', paused_at: null });
      expect(Math.abs(resumed.current_period_end * 1000 - originalNextBill - pausedMs)).toBeLessThan(2000);
      expect((await world.api.post(`/subscriptions/${subscription.id}/resume`)).status).toBe(409);

      await advanceTo(world, subscription.id, resumed.current_period_end * 1000 + HOUR_MS);
      const invoices = await invoicesOf(world, subscription.id);
      expect(invoices).toHaveLength(2);
      expect(invoices[1]!.periodStart.getTime()).toBe(resumed.current_period_end * 1000);
      expect(invoices[1]!.periodStart.getTime() - originalNextBill).toBeGreaterThanOrEqual(10 * DAY_MS - HOUR_MS);

      const events = (await subscriptionEvents(world, subscription.id)).filter((event) =>
        /paused|resumed/.test(event.type),
      );
      expect(
        events.map((event) => [
          event.type,
          (event.data as any).status,
          (event.data as any).reason,
          (event.data as any).initiated_by,
        ]),
      ).toEqual([
        ['subscription.paused', 'paused', 'requested', 'merchant'],
        ['subscription.resumed', 'active', 'requested', 'merchant'],
      ]);
      return [subscription.id];
    });
  });

  it('cancel now stops billing at once; a second cancel is refused', async () => {
    await inWorld('cancel-now', async (world) => {
      const { customer, price } = await customerAndPrice(world);
      const now = await world.env.currentTimeMs();
      const subscription = await createSubscription(world.api, {
        customer,
        items: [{ price, quantity: 1 }],
        trial_days: 0,
        start_date: unix(now),
      });
      await advanceBy(world, subscription.id, 3 * DAY_MS);
      const canceled = expectStatus(await world.api.delete(`/subscriptions/${subscription.id}`), 200, 'DELETE');
      expect(canceled).toMatchObject({ status: 'canceled', cancel_at_period_end: false });
      expect(canceled.canceled_at).toBe(canceled.ended_at);

      await world.env.sleep(70 * DAY_MS);
      expect(await invoicesOf(world, subscription.id)).toHaveLength(1);
      const again = await world.api.delete(`/subscriptions/${subscription.id}`);
      expect(again.status).toBe(409);
      expect(again.body.error).toMatchObject({ type: 'conflict', code: 'subscription_canceled' });
      const [event] = (await subscriptionEvents(world, subscription.id)).filter(
        (e) => e.type === 'subscription.canceled',
      );
      expect(event!.data).toMatchObject({ status: 'canceled', reason: 'requested', initiated_by: 'merchant' });
      return [subscription.id];
    });
  });

  it('cancel at period end keeps the paid period, then cancels before the next invoice', async () => {
    await inWorld('cancel-at-period-end', async (world) => {
      const { customer, price } = await customerAndPrice(world);
      const now = await world.env.currentTimeMs();
      const subscription = await createSubscription(world.api, {
        customer,
        items: [{ price, quantity: 1 }],
        trial_days: 0,
        start_date: unix(now),
      });
      await advanceBy(world, subscription.id, 3 * DAY_MS);
      const pending = expectStatus(
        await world.api.delete(`/subscriptions/${subscription.id}?at_period_end=true`),
        200,
        'DELETE',
      );
      expect(pending).toMatchObject({
        status: 'active',
        cancel_at_period_end: true,
        cancel_at: subscription.current_period_end,
      });

      await advanceTo(world, subscription.id, subscription.current_period_end * 1000 + 40 * DAY_MS);
      expect(await invoicesOf(world, subscription.id)).toHaveLength(1);
      expect(await getSubscription(world, subscription.id)).toMatchObject({
        status: 'canceled',
        cancel_at_period_end: true,
        ended_at: subscription.current_period_end,
        canceled_at: pending.canceled_at,
      });
      const types = (await subscriptionEvents(world, subscription.id))
        .map((event) => event.type)
        .filter((type) => type.startsWith('subscription.'));
      expect(types.slice(-2)).toEqual(['subscription.updated', 'subscription.canceled']);
      return [subscription.id];
    });
  });

  it('a quantity change takes effect on the next invoice, not the current one', async () => {
    await inWorld('quantity-change', async (world) => {
      const { customer, price } = await customerAndPrice(world, { unitAmount: 1000 });
      const now = await world.env.currentTimeMs();
      const subscription = await createSubscription(world.api, {
        customer,
        items: [{ price, quantity: 1 }],
        trial_days: 0,
        start_date: unix(now),
      });
      const itemId = subscription.items.data[0].id;
      await advanceBy(world, subscription.id, 5 * DAY_MS);

      const patched = expectStatus(
        await world.api.patch(`/subscriptions/${subscription.id}`, { items: [{ id: itemId, quantity: 3 }] }),
        200,
        'PATCH',
      );
      expect(patched.items).toMatchObject({ total_count: 1, data: [{ id: itemId, quantity: 3 }] });
      const [first] = await invoicesOf(world, subscription.id);
      expect(first).toMatchObject({ total: 1000n });

      await advanceTo(world, subscription.id, subscription.current_period_end * 1000 + HOUR_MS);
      const invoices = await invoicesOf(world, subscription.id);
      expect(invoices.map((invoice) => [invoice.lines[0]!.quantity, invoice.total])).toEqual([
        [1, 1000n],
        [3, 3000n],
      ]);
      expect(unix(invoices[1]!.periodStart.getTime())).toBe(subscription.current_period_end);
      return [subscription.id];
    });
  });

  it('prorations (decisions.md §25): create_prorations waits for the renewal, always_invoice charges now with what waits, cancel with prorate credits the unused time to the balance', async () => {
    await inWorld('prorations', async (world) => {
      const { customer, price } = await customerAndPrice(world, { unitAmount: 3000 });
      const now = await world.env.currentTimeMs();
      const subscription = await createSubscription(world.api, {
        customer,
        items: [{ price, quantity: 1 }],
        trial_days: 0,
        start_date: unix(now),
      });
      const itemId = subscription.items.data[0].id;
      const change = (quantity: number, behavior: string) =>
        world.api.patch(`/subscriptions/${subscription.id}`, {
          items: [{ id: itemId, quantity }],
          proration_behavior: behavior,
        });
      await advanceBy(world, subscription.id, 5 * DAY_MS);
      expectStatus(await change(2, 'create_prorations'), 200, 'PATCH create_prorations');
      expect(await invoicesOf(world, subscription.id)).toHaveLength(1);
      await advanceBy(world, subscription.id, 3 * DAY_MS);
      expectStatus(await change(3, 'always_invoice'), 200, 'PATCH always_invoice');
      const [, now1] = await invoicesOf(world, subscription.id);
      // The lines of both changes, invoiced and charged at once.
      expect(now1).toMatchObject({ billingReason: 'subscription_update', status: 'paid' });
      expect(now1!.lines.map((line) => [line.quantity, line.proration, Math.sign(Number(line.amount))])).toEqual([
        [1, true, -1],
        [2, true, 1],
        [2, true, -1],
        [3, true, 1],
      ]);
      await advanceTo(world, subscription.id, subscription.current_period_end * 1000 + HOUR_MS);
      const renewal = (await invoicesOf(world, subscription.id))[2]!;
      expect(renewal).toMatchObject({ billingReason: 'subscription_cycle', total: 9000n, status: 'paid' });
      await advanceBy(world, subscription.id, 10 * DAY_MS);
      const canceled = expectStatus(
        await world.api.delete(`/subscriptions/${subscription.id}?prorate=true`),
        200,
        'DELETE ?prorate=true',
      );
      const final = (await invoicesOf(world, subscription.id))[3]!;
      expect(canceled).toMatchObject({ status: 'canceled', latest_invoice: final.id });
      expect(final.total < 0n).toBe(true);
      // The ending's credit goes to the customer's balance (decisions.md §25), not back to the card.
      expect(final.appliedBalance).toBe(final.total);
      const untouched = await world.app.prisma.invoice.findUniqueOrThrow({ where: { id: renewal.id } });
      expect(untouched.amountRefunded).toBe(0n);
      const owner = await world.app.prisma.customer.findUniqueOrThrow({ where: { id: customer } });
      expect(owner.balance).toBe(final.total);
      return [subscription.id];
    });
  });

  it("a downgrade below zero (decisions.md §25) credits the customer's balance, which pays the next renewals; nothing is carried", async () => {
    await inWorld('downgrade-below-zero', async (world) => {
      const { customer, price } = await customerAndPrice(world, { unitAmount: 10_000 });
      const cheap = await recurringPrice(world.api, { unitAmount: 1000 });
      const now = await world.env.currentTimeMs();
      const subscription = await createSubscription(world.api, {
        customer,
        items: [{ price, quantity: 1 }],
        trial_days: 0,
        start_date: unix(now),
      });
      await advanceBy(world, subscription.id, 5 * DAY_MS);
      expectStatus(
        await world.api.patch(`/subscriptions/${subscription.id}`, {
          items: [{ id: subscription.items.data[0].id, price: cheap }],
          proration_behavior: 'always_invoice',
        }),
        200,
        'PATCH always_invoice downgrade',
      );
      const [, downgrade] = await invoicesOf(world, subscription.id);
      expect(downgrade!.total < 0n).toBe(true);
      expect(downgrade).toMatchObject({ status: 'paid', appliedBalance: downgrade!.total, amountDue: 0n });
      const credit = -downgrade!.total;
      expect((await subscriptionState(world, subscription.id)).pendingLines).toBeUndefined();
      await advanceTo(world, subscription.id, subscription.current_period_end * 1000 + HOUR_MS);
      const renewal = (await invoicesOf(world, subscription.id))[2]!;
      expect(renewal.lines).toHaveLength(1);
      expect(renewal).toMatchObject({ total: 1000n, appliedBalance: 1000n, amountPaid: 0n, status: 'paid' });
      const owner = await world.app.prisma.customer.findUniqueOrThrow({ where: { id: customer } });
      expect(owner.balance).toBe(-(credit - 1000n));
      const entries = await world.app.prisma.customerBalanceTransaction.findMany({
        where: { customerId: customer },
        orderBy: { seq: 'asc' },
      });
      expect(entries.map((entry) => [entry.type, entry.amount, entry.invoiceId])).toEqual([
        ['applied_to_invoice', -credit, downgrade!.id],
        ['applied_to_invoice', 1000n, renewal.id],
      ]);
      return [subscription.id];
    });
  });

  it('a period that cannot be invoiced (its customer is gone) is recorded and moved past (past_due), not retried forever', async () => {
    await inWorld('renewal-rejected-local-steps', async (world) => {
      const { customer, price } = await customerAndPrice(world);
      const now = await world.env.currentTimeMs();
      const subscription = await createSubscription(world.api, {
        customer,
        items: [{ price, quantity: 1 }],
        trial_days: 0,
        start_date: unix(now),
      });
      // The API refuses to delete a customer with a running subscription (409), so the customer is
      // removed under the workflow directly, as a support correction or a race would leave it.
      expectStatus(await world.api.delete(`/customers/${customer}`), 409, 'DELETE /customers');
      await world.app.prisma.customer.update({ where: { id: customer }, data: { deletedAt: new Date() } });

      await advanceTo(world, subscription.id, subscription.current_period_end * 1000 + HOUR_MS);
      expect(await invoicesOf(world, subscription.id)).toHaveLength(1);
      const state = await subscriptionState(world, subscription.id);
      expect(state.lastError).toContain(customer);
      // Not in silence: past_due until a later period is invoiced (test/subscriptions/subscription-not-invoiced.test.ts).
      expect(await getSubscription(world, subscription.id)).toMatchObject({
        status: 'past_due',
        current_period_start: subscription.current_period_end,
      });
      return [subscription.id];
    });
  });

  it('created by the API (decisions.md §14): the first invoice is made and charged before the 201, the workflow records the period and renews; a decline goes to dunning', async () => {
    await inWorld('api-created', async (world) => {
      const { start, paid, declined } = await createdPayingAndDeclining(world, 1200, 1300);
      const [first] = await invoicesOf(world, paid.id);
      expect(paid).toMatchObject({ status: 'active', latest_invoice: first!.id });
      // The start date, or the next second when the API read its clock after that second had passed (a start date in the past starts now).
      expect([0, 1]).toContain(paid.current_period_start - start);
      expect(first).toMatchObject({ status: 'paid', billingReason: 'subscription_create', attemptCount: 1 });
      expect(await settled(world, declined.id)).toMatchObject({ dunning: [expect.objectContaining({ attempts: 1 })] });

      await advanceBy(world, paid.id, 32 * DAY_MS);
      const invoices = await invoicesOf(world, paid.id);
      expect(invoices.map((invoice) => [invoice.status, invoice.billingReason])).toEqual([
        ['paid', 'subscription_create'],
        ['paid', 'subscription_cycle'],
      ]);
      expect(await world.app.prisma.transaction.count({ where: { invoiceId: first!.id, type: 'payment' } })).toBe(1);
      expect(invoiceEventTypes(await subscriptionEvents(world, paid.id))[0]).toEqual([
        'invoice.created',
        'invoice.finalized',
        'invoice.payment_succeeded',
      ]);
      expect(await settled(world, declined.id)).toBeNull();
      expect(await getSubscription(world, declined.id)).toMatchObject({ status: 'canceled' });
      return [paid.id, declined.id];
    });
  });

  it("created by the API: a paid first invoice's period is recorded by the API and the workflow starts from it, with nothing to run until the renewal (the charge's receipt in its input); a declined first charge goes through the charge activity to dunning", async () => {
    await inWorld('api-created-local', async (world) => {
      const createdFrom = await world.env.currentTimeMs();
      const { paid, declined } = await withFirstTaskDelayed(() => createdPayingAndDeclining(world, 1400, 1500));
      const creationMs = (await world.env.currentTimeMs()) - createdFrom;
      const [first] = await invoicesOf(world, paid.id);
      expect(paid).toMatchObject({ status: 'active', latest_invoice: first!.id });
      const payments = await world.app.prisma.transaction.findMany({
        where: { invoiceId: first!.id, type: 'payment' },
      });
      expect(payments).toHaveLength(1);
      // Nothing run at all (first-step): the workflow's first task waits for the renewal (a start delay); its input shows the API's charge.
      const view = await expectFirstTaskAt(world, paid.id, paid.current_period_end * 1000, creationMs);
      expect(view.input).toMatchObject({
        created: { version: 3, invoicesIssued: 1, latestInvoiceId: first!.id },
        firstCharge: { transactionId: payments[0]!.id, status: 'succeeded', amount: 1400 },
      });
      const events = await subscriptionEvents(world, paid.id);
      expect(invoiceEventTypes(events)).toEqual([
        ['invoice.created', 'invoice.finalized', 'invoice.payment_succeeded'],
      ]);
      expect(events.filter((event) => event.type.startsWith('subscription.')).map((event) => event.type)).toEqual([
        'subscription.created',
        'subscription.updated',
      ]);
      expect(await getSubscription(world, paid.id)).toMatchObject({
        status: 'active',
        latest_invoice: first!.id,
        current_period_start: paid.current_period_start,
      });

      // The API's charge was declined: the invoice is open, the charge activity's attempt 1 finds that failure.
      expect(await settled(world, declined.id)).toMatchObject({ dunning: [expect.objectContaining({ attempts: 1 })] });
      const declinedView = await historyView(world.env.client.workflow.getHandle(subscriptionWorkflowId(declined.id)));
      expect(declinedView.activities.map(({ type, local }) => [type, local])).toEqual([
        ['settleCreatedInvoice', true],
        ['chargeRenewalInvoice', false],
        ['persistSubscription', false],
        // No read of the account's reminder days before it waits: they came with the start (docs/decisions.md §31).
      ]);
      expect(invoiceEventTypes(await subscriptionEvents(world, declined.id))).toEqual([
        ['invoice.created', 'invoice.finalized', 'invoice.payment_failed'],
      ]);
      expect(await gatewayCharges(world.app.prisma, world.accountId)).toBe(2);

      // At the renewal the delayed first task runs from the recorded state: period 1 billed and charged once.
      expect(await advanceTo(world, paid.id, paid.current_period_end * 1000 + HOUR_MS)).toMatchObject({
        version: 4,
        invoicesIssued: 2,
        nextPeriodIndex: 2,
      });
      const renewed = await invoicesOf(world, paid.id);
      expect(renewed.map((invoice) => [invoice.status, invoice.periodStart.getTime()])).toEqual([
        ['paid', paid.current_period_start * 1000],
        ['paid', paid.current_period_end * 1000],
      ]);
      return [paid.id, declined.id];
    });
  });

  it("created by the API, whose transaction settling the first charge failed (the paid period is recorded in it, docs/decisions.md §14): answered 202, the workflow's attempt 1 finishes the charge under the API's key and records the period, charging nothing again", async () => {
    await inWorld('api-created-unrecorded', async (world) => {
      const { prisma } = world.app;
      // The API's record of the paid period fails (here a trigger refuses its statement; in production the
      // database went away for a moment): the payment settled with it is not recorded either, so the creation answers
      // billing pending and starts the workflow from the creation's state, its attempt 1 still in flight.
      await prisma.$executeRawUnsafe(`CREATE OR REPLACE FUNCTION refuse_recorded_start() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN IF NEW.account_id = '${world.accountId}' THEN RAISE EXCEPTION 'refused by the test'; END IF; RETURN NEW; END $$`);
      await prisma.$executeRawUnsafe(
        'CREATE TRIGGER refuse_recorded_start BEFORE UPDATE ON workflow_starts FOR EACH ROW EXECUTE FUNCTION refuse_recorded_start()',
      );
      let answer: { status: number; body: { id: string; status: string; latest_invoice: string } };
      try {
        const created = await customerAndPrice(world, { unitAmount: 1400 });
        const start = unix(await world.env.currentTimeMs());
        answer = await world.api.post('/subscriptions', {
          customer: created.customer,
          items: [{ price: created.price, quantity: 1 }],
          trial_days: 0,
          start_date: start,
        });
      } finally {
        await prisma.$executeRawUnsafe('DROP TRIGGER refuse_recorded_start ON workflow_starts');
        await prisma.$executeRawUnsafe('DROP FUNCTION refuse_recorded_start()');
      }
      expect(answer.status).toBe(202);
      const paid = answer.body;
      const [first] = await invoicesOf(world, paid.id);
      expect(paid).toMatchObject({ status: 'active', latest_invoice: first!.id });
      expect(await settled(world, paid.id)).toMatchObject({
        version: 3,
        invoicesIssued: 1,
        nextPeriodIndex: 1,
        latestInvoiceId: first!.id,
      });
      const payments = await prisma.transaction.findMany({ where: { invoiceId: first!.id, type: 'payment' } });
      expect(payments).toEqual([expect.objectContaining({ status: 'succeeded', attempt: 1 })]);
      const view = await historyView(world.env.client.workflow.getHandle(subscriptionWorkflowId(paid.id)));
      expect(view.input).toMatchObject({
        created: { version: 2, invoicesIssued: 0 },
        // The account's reminder days as the creation read them (none set): its first reminder asks nothing (docs/decisions.md §31).
        reminderDays: { renewal_reminder: null, trial_ending: null },
      });
      expect(view.activities.map(({ type, local }) => [type, local])).toEqual([
        ['settleCreatedInvoice', true],
        ['chargeRenewalInvoice', false],
        ['persistSubscription', false],
      ]);
      expect(view.activities[1]!.result).toMatchObject({
        outcome: 'paid',
        charge: { transactionId: payments[0]!.id, amount: 1400 },
      });
      const events = await subscriptionEvents(world, paid.id);
      expect(invoiceEventTypes(events)).toEqual([
        ['invoice.created', 'invoice.finalized', 'invoice.payment_succeeded'],
      ]);
      expect(events.filter((event) => event.type.startsWith('subscription.')).map((event) => event.type)).toEqual([
        'subscription.created',
        'subscription.updated',
      ]);
      expect(await gatewayCharges(prisma, world.accountId)).toBe(1);
      return [paid.id];
    });
  });
});
