import { addPaymentMethod, cardBody, CARDS, createCustomer, customerWithCard } from '../support/payments';
import { hostedPath, pageForm, postForm } from '../hosted-pages/pages';
import { HOUR_MS } from '../../src/lib/durations';
import {
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
  type SubscriptionWorld,
} from '../support/subscriptions';

import {
  invoiceSettledSignal,
  subscriptionWorkflowId,
  type SubscriptionStateView,
} from '../../workflows/subscription-messages';
import { BILLING_STATUS } from '../../src/temporal/search-attributes';

// A declining card through each dunning outcome (decisions.md §7), on time-skipping Temporal
// environments, through the HTTP API. Each failed charge is its own invoice.payment_failed.

async function inWorld(name: string, scenario: (world: SubscriptionWorld) => Promise<string>): Promise<void> {
  const world = await startSubscriptionWorld();
  try {
    await recordHistories(world, await scenario(world), name);
  } finally {
    await world.close();
  }
}

async function setDunning(world: SubscriptionWorld, retryDays: number[], outcome: string) {
  return expectStatus(
    await world.api.put('/settings/dunning', { retry_days: retryDays, outcome }),
    200,
    'PUT /settings/dunning',
  );
}

async function subscribe(world: SubscriptionWorld, customer: string, price?: string) {
  const now = await world.env.currentTimeMs();
  const created = await createSubscription(world.api, {
    customer,
    items: [{ price: price ?? (await recurringPrice(world.api, { unitAmount: 3000 })), quantity: 1 }],
    trial_days: 0,
    start_date: unix(now),
  });
  // The 201 comes once the API's first charge returns; the workflow's attempt 1 then finds a decline and starts dunning (docs/api.md).
  await settled(world, created.id);
  return expectStatus(await world.api.get(`/subscriptions/${created.id}`), 200, 'GET');
}

async function failedCharges(world: SubscriptionWorld, subscriptionId: string) {
  return (await subscriptionEvents(world, subscriptionId)).filter((event) => event.type === 'invoice.payment_failed');
}

/** When the renewal charge failed, in the workflow's time: retries are counted from here. */
async function firstFailure(world: SubscriptionWorld, subscriptionId: string): Promise<number> {
  const [dunning] = (await subscriptionState(world, subscriptionId)).dunning;
  return dunning!.failedAt;
}

const getSubscription = async (world: SubscriptionWorld, id: string) =>
  expectStatus(await world.api.get(`/subscriptions/${id}`), 200, 'GET');

describe('past_due', () => {
  it('reads show past_due while an invoice is in dunning (webhooks: active); paid through the API it is active at once, and no retry charges again', async () => {
    const world = await startSubscriptionWorld();
    try {
      const { customer } = await customerWithCard(world.api, CARDS.declined);
      const created = expectStatus(
        await world.api.post('/subscriptions', {
          customer: customer.id,
          items: [{ price: await recurringPrice(world.api, { unitAmount: 3000 }), quantity: 1 }],
          trial_days: 0,
          start_date: unix(await world.env.currentTimeMs()),
        }),
        201,
      );
      // The creation answers the contract's statuses: its declined first charge shows from the next read on.
      expect(created.status).toBe('active');
      await settled(world, created.id);
      const id: string = created.id;
      expect(expectStatus(await world.api.get(`/subscriptions/${id}`), 200).status).toBe('past_due');
      expect(
        expectStatus(await world.api.get('/subscriptions?status=past_due'), 200).data.map(
          (row: { id: string }) => row.id,
        ),
      ).toEqual([id]);
      expect(expectStatus(await world.api.get('/subscriptions?status=active'), 200).data).toEqual([]);
      const updates = (await subscriptionEvents(world, id)).filter((event) => event.type === 'subscription.updated');
      expect((updates.at(-1)!.data as { status: string }).status).toBe('active');
      const described = await world.env.client.workflow.getHandle(subscriptionWorkflowId(id)).describe();
      expect(described.typedSearchAttributes.get(BILLING_STATUS)).toBe('past_due');

      // Paid out of band with another card: the workflow is told, checks the invoice, and dunning ends now.
      const [invoice] = await invoicesOf(world, id);
      const goodCard = await addPaymentMethod(world.api, customer.id, cardBody(CARDS.succeeds));
      expect(
        expectStatus(await world.api.put(`/invoices/${invoice!.id}`, { payment_method: goodCard.id }), 200).status,
      ).toBe('paid');
      const state = await eventuallyState(world, id, (view) => view.dunning.length === 0);
      expect(state.billingStatus).toBe('active');
      expect(expectStatus(await world.api.get(`/subscriptions/${id}`), 200).status).toBe('active');
      const after = await world.env.client.workflow.getHandle(subscriptionWorkflowId(id)).describe();
      expect(after.typedSearchAttributes.get(BILLING_STATUS)).toBe('active');
      const failedAt = invoice!.createdAt.getTime();
      await advanceTo(world, id, failedAt + 2 * DAY_MS);
      expect(await world.app.prisma.transaction.count({ where: { invoiceId: invoice!.id } })).toBe(2);
      expect((await failedCharges(world, id)).length).toBe(1);

      // A notice about anything else changes nothing.
      await world.env.client.workflow
        .getHandle(subscriptionWorkflowId(id))
        .signal(invoiceSettledSignal, { invoiceId: 'not-an-invoice' });
      expect((await settled(world, id))!.version).toBe(state.version);
      await recordHistories(world, id, 'dunning-settled-out-of-band');
    } finally {
      await world.close();
    }
  });
});

async function eventuallyState(
  world: SubscriptionWorld,
  id: string,
  done: (view: SubscriptionStateView) => boolean,
): Promise<SubscriptionStateView> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const view = await settled(world, id);
    if (view && done(view)) return view;
    if (Date.now() > deadline) throw new Error(`subscription ${id} did not reach the state in time`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('dunning', () => {
  it('defaults: retried 1, 3 and 5 days after the failure, then canceled with reason dunning', async () => {
    await inWorld('dunning-cancel', async (world) => {
      expect(expectStatus(await world.api.get('/settings/dunning'), 200)).toEqual({
        object: 'dunning_settings',
        retry_days: [1, 3, 5],
        outcome: 'cancel',
      });
      const { customer } = await customerWithCard(world.api, CARDS.declined);
      const subscription = await subscribe(world, customer.id);
      const failedAt = await firstFailure(world, subscription.id);
      expect(subscription).toMatchObject({ status: 'past_due' });
      const [invoice] = await invoicesOf(world, subscription.id);
      expect(invoice).toMatchObject({ status: 'open', attemptCount: 1 });
      expect(await subscriptionState(world, subscription.id)).toMatchObject({
        dunning: [
          {
            invoiceId: invoice!.id,
            attempts: 1,
            retryDays: [1, 3, 5],
            outcome: 'cancel',
            nextRetryAt: failedAt + DAY_MS,
          },
        ],
      });

      const failuresBy = async (at: number) => {
        await advanceTo(world, subscription.id, at);
        return (await failedCharges(world, subscription.id)).length;
      };
      expect(await failuresBy(failedAt + DAY_MS - HOUR_MS)).toBe(1);
      expect(await failuresBy(failedAt + DAY_MS + HOUR_MS)).toBe(2);
      expect(await failuresBy(failedAt + 3 * DAY_MS - HOUR_MS)).toBe(2);
      expect(await failuresBy(failedAt + 3 * DAY_MS + HOUR_MS)).toBe(3);
      // Its invoice in dunning: past_due (decisions.md §7).
      expect((await getSubscription(world, subscription.id)).status).toBe('past_due');
      expect(await failuresBy(failedAt + 5 * DAY_MS + HOUR_MS)).toBe(4);

      const canceled = await getSubscription(world, subscription.id);
      expect(canceled).toMatchObject({ status: 'canceled', latest_invoice: invoice!.id });
      expect(canceled.canceled_at).toBe(unix(failedAt + 5 * DAY_MS));
      const events = await subscriptionEvents(world, subscription.id);
      expect(events.map((event) => event.type)).toEqual([
        'subscription.created',
        'invoice.created',
        'invoice.finalized',
        'invoice.payment_failed',
        'subscription.updated',
        'invoice.payment_failed',
        'invoice.payment_failed',
        'invoice.payment_failed',
        'subscription.canceled',
      ]);
      expect(events.at(-1)!.data).toMatchObject({ status: 'canceled', reason: 'dunning', initiated_by: 'system' });
      const [final] = await invoicesOf(world, subscription.id);
      expect(final).toMatchObject({ status: 'open', attemptCount: 4 });

      await advanceTo(world, subscription.id, failedAt + 60 * DAY_MS);
      expect(await invoicesOf(world, subscription.id)).toHaveLength(1);
      return subscription.id;
    });
  });

  it('outcome pause: the subscription pauses (reason dunning), bills nothing while paused, and resumes on request', async () => {
    await inWorld('dunning-pause', async (world) => {
      await setDunning(world, [1, 3, 5], 'pause');
      const { customer } = await customerWithCard(world.api, CARDS.insufficientFunds);
      const subscription = await subscribe(world, customer.id);
      const failedAt = await firstFailure(world, subscription.id);

      await advanceTo(world, subscription.id, failedAt + 5 * DAY_MS + HOUR_MS);
      const paused = await getSubscription(world, subscription.id);
      expect(paused).toMatchObject({ status: 'paused', paused_at: unix(failedAt + 5 * DAY_MS) });
      expect((await failedCharges(world, subscription.id)).length).toBe(4);
      const [pausedEvent] = (await subscriptionEvents(world, subscription.id)).filter(
        (event) => event.type === 'subscription.paused',
      );
      expect(pausedEvent!.data).toMatchObject({ status: 'paused', reason: 'dunning', initiated_by: 'system' });

      // The next billing date passes while paused: nothing billed.
      await advanceTo(world, subscription.id, subscription.current_period_end * 1000 + 5 * DAY_MS);
      expect(await invoicesOf(world, subscription.id)).toHaveLength(1);
      const resumed = expectStatus(await world.api.post(`/subscriptions/${subscription.id}/resume`), 200, 'resume');
      // Running again, its invoice still owed: past_due until it is paid (decisions.md §7).
      expect(resumed.status).toBe('past_due');
      const [resumedEvent] = (await subscriptionEvents(world, subscription.id)).filter(
        (event) => event.type === 'subscription.resumed',
      );
      expect(resumedEvent!.data).toMatchObject({ reason: 'requested', initiated_by: 'merchant' });
      return subscription.id;
    });
  });

  it('resuming a subscription paused by dunning charges its open invoice again; a failure starts the dunning schedule again', async () => {
    await inWorld('dunning-pause-resume-charges', async (world) => {
      await setDunning(world, [1], 'pause');
      const { customer } = await customerWithCard(world.api, CARDS.declined);
      const subscription = await subscribe(world, customer.id);
      const failedAt = await firstFailure(world, subscription.id);
      await advanceTo(world, subscription.id, failedAt + DAY_MS + HOUR_MS);
      expect((await getSubscription(world, subscription.id)).status).toBe('paused');
      expect((await failedCharges(world, subscription.id)).length).toBe(2);

      // Still the declining card: the resume charges the invoice at once (3rd failure), then retries a day later and pauses again.
      await advanceTo(world, subscription.id, failedAt + 3 * DAY_MS);
      expect(expectStatus(await world.api.post(`/subscriptions/${subscription.id}/resume`), 200, 'resume').status).toBe(
        'past_due',
      );
      await settled(world, subscription.id);
      expect((await failedCharges(world, subscription.id)).length).toBe(3);
      const [invoice] = await invoicesOf(world, subscription.id);
      expect(invoice).toMatchObject({ status: 'open', attemptCount: 3 });
      const resumedAt = (await subscriptionState(world, subscription.id)).dunning[0]!.failedAt;
      expect((await subscriptionState(world, subscription.id)).dunning).toEqual([
        expect.objectContaining({
          invoiceId: invoice!.id,
          attempts: 1,
          attemptOffset: 2,
          nextRetryAt: resumedAt + DAY_MS,
        }),
      ]);
      await advanceTo(world, subscription.id, resumedAt + DAY_MS + HOUR_MS);
      expect((await failedCharges(world, subscription.id)).length).toBe(4);
      expect(await getSubscription(world, subscription.id)).toMatchObject({ status: 'paused' });
      const pauses = (await subscriptionEvents(world, subscription.id)).filter(
        (event) => event.type === 'subscription.paused',
      );
      expect(pauses.map((event) => (event.data as { reason: string }).reason)).toEqual(['dunning', 'dunning']);

      // A working card, then resume: the open invoice is paid (5th attempt, its own key) and dunning ends.
      const goodCard = await addPaymentMethod(world.api, customer.id, cardBody(CARDS.succeeds));
      expectStatus(
        await world.api.patch(`/subscriptions/${subscription.id}`, { default_payment_method: goodCard.id }),
        200,
        'PATCH',
      );
      expect(expectStatus(await world.api.post(`/subscriptions/${subscription.id}/resume`), 200, 'resume').status).toBe(
        'past_due',
      );
      await settled(world, subscription.id);
      const [paid] = await invoicesOf(world, subscription.id);
      expect(paid).toMatchObject({ status: 'paid', attemptCount: 5, paymentMethodId: goodCard.id });
      expect((await subscriptionState(world, subscription.id)).dunning).toEqual([]);
      expect(await getSubscription(world, subscription.id)).toMatchObject({ status: 'active' });
      const charges = await world.app.prisma.transaction.count({ where: { invoiceId: paid!.id, status: 'succeeded' } });
      expect(charges).toBe(1);
      return subscription.id;
    });
  });

  it('outcome keep_active: the subscription stays active after the retries and bills the next period', async () => {
    await inWorld('dunning-keep-active', async (world) => {
      await setDunning(world, [2], 'keep_active');
      const { customer } = await customerWithCard(world.api, CARDS.declined);
      const subscription = await subscribe(world, customer.id);
      const failedAt = subscription.current_period_start * 1000;

      await advanceTo(world, subscription.id, failedAt + 2 * DAY_MS + HOUR_MS);
      expect((await failedCharges(world, subscription.id)).length).toBe(2);
      expect(await getSubscription(world, subscription.id)).toMatchObject({ status: 'active' });
      expect((await subscriptionState(world, subscription.id)).dunning).toEqual([]);
      expect(
        (await subscriptionEvents(world, subscription.id)).some((event) => /canceled|paused/.test(event.type)),
      ).toBe(false);

      await advanceTo(world, subscription.id, subscription.current_period_end * 1000 + HOUR_MS);
      const invoices = await invoicesOf(world, subscription.id);
      expect(invoices.map((invoice) => invoice.status)).toEqual(['open', 'open']);
      expect((await failedCharges(world, subscription.id)).length).toBe(3);
      return subscription.id;
    });
  });

  it('a retry with a new default payment method pays the invoice and ends dunning', async () => {
    await inWorld('dunning-recovered-local-steps', async (world) => {
      const { customer } = await customerWithCard(world.api, CARDS.declined);
      const subscription = await subscribe(world, customer.id);
      const failedAt = subscription.current_period_start * 1000;

      const goodCard = await addPaymentMethod(world.api, customer.id, cardBody(CARDS.succeeds));
      const patched = expectStatus(
        await world.api.patch(`/subscriptions/${subscription.id}`, { default_payment_method: goodCard.id }),
        200,
        'PATCH',
      );
      expect(patched.default_payment_method).toBe(goodCard.id);

      await advanceTo(world, subscription.id, failedAt + 6 * DAY_MS);
      const [invoice] = await invoicesOf(world, subscription.id);
      expect(invoice).toMatchObject({ status: 'paid', attemptCount: 2, paymentMethodId: goodCard.id });
      expect(await getSubscription(world, subscription.id)).toMatchObject({ status: 'active' });
      expect((await subscriptionState(world, subscription.id)).dunning).toEqual([]);
      const types = (await subscriptionEvents(world, subscription.id))
        .map((event) => event.type)
        .filter((type) => type.startsWith('invoice.'));
      expect(types).toEqual([
        'invoice.created',
        'invoice.finalized',
        'invoice.payment_failed',
        'invoice.payment_succeeded',
      ]);
      return subscription.id;
    });
  });

  it('a customer with no payment method: the renewal fails with its own invoice.payment_failed; no retries configured -> canceled at once', async () => {
    await inWorld('dunning-no-payment-method', async (world) => {
      await setDunning(world, [], 'cancel');
      const customer = await createCustomer(world.api);
      const subscription = await subscribe(world, customer.id);
      expect(subscription.status).toBe('canceled');
      const [invoice] = await invoicesOf(world, subscription.id);
      expect(invoice).toMatchObject({ status: 'open' });
      const renewal = await world.app.prisma.subscriptionRenewal.findFirst({
        where: { subscriptionId: subscription.id },
      });
      expect(renewal).toMatchObject({
        status: 'payment_failed',
        attemptCount: 1,
        lastFailureCode: 'payment_method_missing',
        invoiceId: invoice!.id,
      });
      const types = (await subscriptionEvents(world, subscription.id)).map((event) => event.type);
      expect(types).toEqual([
        'subscription.created',
        'invoice.created',
        'invoice.finalized',
        'invoice.payment_failed',
        'subscription.updated',
        'subscription.canceled',
      ]);
      // The event shows the attempt it reports, as a declined charge's does.
      const [failed] = (await subscriptionEvents(world, subscription.id)).filter(
        (event) => event.type === 'invoice.payment_failed',
      );
      expect(failed!.data).toMatchObject({ id: invoice!.id, status: 'open', attempted: true, attempt_count: 1 });
      expect(expectStatus(await world.api.get(`/invoices/${invoice!.id}`), 200)).toMatchObject({
        attempted: true,
        attempt_count: 1,
      });
      return subscription.id;
    });
  });
});

describe('a charge the customer must authenticate (3-D Secure)', () => {
  it('counts as a failed attempt for dunning, whose retries charge nothing beside it, until the customer authenticates on the hosted page', async () => {
    const world = await startSubscriptionWorld();
    try {
      const { customer } = await customerWithCard(world.api, CARDS.authenticationRequired);
      const subscription = await subscribe(world, customer.id);
      const id: string = subscription.id;
      expect(subscription.status).toBe('past_due');
      const [invoice] = await invoicesOf(world, id);
      expect(invoice!.status).toBe('open');
      const attempts = () => world.app.prisma.transaction.findMany({ where: { invoiceId: invoice!.id } });
      expect(await attempts()).toEqual([
        expect.objectContaining({ status: 'pending', failureCode: 'authentication_required' }),
      ]);
      const [dunning] = (await subscriptionState(world, id)).dunning;
      expect(dunning).toMatchObject({ invoiceId: invoice!.id, attempts: 1 });

      // The first retry is counted too; it asks about the charge waiting and makes none of its own.
      await advanceTo(world, id, dunning!.failedAt + dunning!.retryDays[0]! * DAY_MS + HOUR_MS);
      expect((await subscriptionState(world, id)).dunning[0]).toMatchObject({ attempts: 2 });
      expect(await attempts()).toHaveLength(1);

      // The customer authenticates on the invoice's page (the email's link): paid once, dunning ends.
      const open = expectStatus(await world.api.get(`/invoices/${invoice!.id}`), 200, 'GET invoice');
      const path = hostedPath(open);
      const answer = await postForm(world.app.baseUrl, `${path}/authenticate`, await pageForm(world.app.baseUrl, path));
      expect(answer.status).toBe(303);
      const state = await eventuallyState(world, id, (view) => view.dunning.length === 0);
      expect(state.billingStatus).toBe('active');
      expect(expectStatus(await world.api.get(`/invoices/${invoice!.id}`), 200, 'GET invoice').status).toBe('paid');
      expect(await attempts()).toEqual([expect.objectContaining({ status: 'succeeded', failureCode: null })]);
      const types = (await subscriptionEvents(world, id)).map((event) => event.type);
      expect(types.filter((type) => type === 'invoice.payment_action_required')).toHaveLength(1);
      expect(types.filter((type) => type === 'invoice.payment_failed')).toHaveLength(0);
    } finally {
      await world.close();
    }
  });
});
