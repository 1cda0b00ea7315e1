import { createEmailActivities } from '../../activities/emails';
import { subscriptionWorkflowId } from '../../workflows/subscription-messages';
import type { SubscriptionState } from '../../src/subscriptions/subscription-machine';
import { expectStatus } from '../support/harness';
import { addPaymentMethod, cardBody, CARDS } from '../support/payments';
import { recordWorkflowHistories, recurringPrice } from '../support/subscriptions';
import { customerWithAddresses } from '../support/pdf';
import { caughtMessages, startEmailWorld, waitUntil, type EmailWorld } from '../support/emails';

/**
 * Reminders days before a trial ends and before a renewal (docs/decisions.md §31), on a test clock: the
 * subscription's workflow waits for the reminder's moment, queues it once and starts its email's
 * workflow, which sends it to this file's SMTP catcher. And a payment plan's declined installment.
 */
let world: EmailWorld;

const DAY_S = 86_400;
const seconds = (isoDate: string) => Date.parse(isoDate) / 1000;

beforeAll(async () => {
  world = await startEmailWorld('Babbage Reminders');
  await world.app.prisma.account.update({
    where: { id: world.accountId },
    data: { renewalReminderDays: 7, trialEndReminderDays: 3, brandColor: '#0b7a5a', paymentPlansEnabled: true },
  });
}, 60_000);

afterAll(() => world.close());

async function advance(clockId: string, frozenTime: number) {
  expectStatus(
    await world.api.post(`/test-helpers/test-clocks/${clockId}/advance`, { frozen_time: frozenTime }),
    202,
    'advance',
  );
  await waitUntil(async () => {
    const clock = expectStatus(await world.api.get(`/test-helpers/test-clocks/${clockId}`), 200, 'clock');
    return clock.status === 'ready';
  });
}

async function caughtKinds(to: string): Promise<string[]> {
  const page = expectStatus(
    await world.api.get(`/test-helpers/emails?to=${encodeURIComponent(to)}`),
    200,
    'GET /test-helpers/emails',
  );
  return page.data.map((message: { kind: string }) => message.kind).reverse();
}

/**
 * A subscription on a new clock frozen at `frozen` (its start), with a trial of `trialDays`, for a
 * customer with addresses, the email `to` and a card that pays.
 */
async function clockedSubscription(
  frozen: number,
  to: string,
  trialDays: number,
  item: { price: string; quantity: number },
) {
  const clock = expectStatus(
    await world.api.post('/test-helpers/test-clocks', { frozen_time: frozen, name: 'Reminders' }),
    201,
    'clock',
  );
  const customer = expectStatus(
    await world.api.post('/customers', { ...customerWithAddresses, email: to, test_clock: clock.id }),
    201,
    'customer',
  );
  const method = await addPaymentMethod(world.api, customer.id, cardBody(CARDS.succeeds));
  const subscription = expectStatus(
    await world.api.post('/subscriptions', {
      customer: customer.id,
      items: [item],
      trial_days: trialDays,
      start_date: frozen,
      default_payment_method: method.id,
    }),
    201,
    'POST /subscriptions',
  );
  return { clock, customer, subscription };
}

/** How many times the workflow's current run ran the local activity `type` (its markers in the history). */
async function localActivityCount(workflowId: string, type: string): Promise<number> {
  const { events } = await world.app.temporal.workflow.getHandle(workflowId).fetchHistory();
  return (events ?? []).filter((event) => {
    const data = event.markerRecordedEventAttributes?.details?.data?.payloads?.[0]?.data;
    return data && (JSON.parse(Buffer.from(data).toString()) as { activity_type?: string }).activity_type === type;
  }).length;
}

describe('trial ending and renewal reminders', () => {
  it('each goes once, days before, with the invoice to come; a retry of its steps sends nothing more', async () => {
    const to = 'ada+reminders@example.com';
    const frozen = seconds('2025-01-01T09:00:00Z');
    const price = await recurringPrice(world.api, { unitAmount: 2900 });
    const { clock, customer, subscription } = await clockedSubscription(frozen, to, 14, { price, quantity: 2 });
    expect(subscription.trial_end).toBe(frozen + 14 * DAY_S);

    // Ten days in: the trial's reminder (3 days before its end, day 11) has not come.
    await advance(clock.id, frozen + 10 * DAY_S);
    expect(await caughtKinds(to)).toEqual([]);

    // Day 12: it has, once.
    await advance(clock.id, frozen + 12 * DAY_S);
    const [trial] = await caughtMessages(world.api, to);
    expect(trial).toMatchObject({
      kind: 'trial_ending',
      subject: 'Your trial with Babbage Reminders ends on 15 January 2025',
    });
    for (const body of [trial.text, trial.html]) {
      expect(body).toContain('$58.00'); // 2 x $29.00, the first invoice as it will be made
      expect(body).toContain('charged to your payment method on file');
      expect(body).toContain('12 St James Square');
      expect(body).toContain('Ada at the Lab');
    }
    // The account's colour is the email's.
    expect(trial.html).toContain('#0b7a5a');

    // The trial ends (first invoice paid: its receipt), then 7 days before the renewal of 15 February its reminder.
    await advance(clock.id, frozen + 15 * DAY_S);
    await waitUntil(async () => (await caughtKinds(to)).includes('receipt'));
    await advance(clock.id, seconds('2025-02-07T10:00:00Z'));
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await caughtKinds(to)).toEqual(['trial_ending', 'receipt']);
    await advance(clock.id, seconds('2025-02-09T10:00:00Z'));
    await waitUntil(async () => (await caughtKinds(to)).includes('renewal_reminder'));
    const [renewal] = await caughtMessages(world.api, to);
    expect(renewal.subject).toBe('Your subscription with Babbage Reminders renews on 15 February 2025');
    expect(renewal.text).toContain('$58.00 on 15 February 2025');

    // Recorded about the subscription, without an event; sent.
    const emails = expectStatus(await world.api.get(`/emails?subscription=${subscription.id}`), 200, 'GET /emails');
    expect(emails.data.map((email: { kind: string }) => email.kind)).toEqual(['renewal_reminder', 'trial_ending']);
    for (const email of emails.data)
      expect(email).toMatchObject({
        status: 'sent',
        event: null,
        subscription: subscription.id,
        customer: customer.id,
        attempts: 1,
      });
    expect(expectStatus(await world.other.get(`/emails?subscription=${subscription.id}`), 200, 'other').data).toEqual(
      [],
    );

    // As Temporal runs the steps again after a crash: the same row, nothing sent again.
    const state = await world.app.temporal.workflow
      .getHandle(subscriptionWorkflowId(subscription.id))
      .query<SubscriptionState>('state');
    const activities = createEmailActivities({ prisma: world.app.prisma, mailer: world.mailer });
    const dueAt = seconds('2025-02-15T09:00:00Z') * 1000;
    const again = await activities.queueReminder({ state, kind: 'renewal_reminder', dueAt });
    expect(again).toBe(emails.data[0].id);
    expect(await activities.deliverEmail({ emailId: again! })).toBe('already_sent');
    const child = await world.app.temporal.workflow.getHandle(`email:${again}`).result();
    expect(child).toEqual({ emailId: again, status: 'sent' });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await caughtKinds(to)).toEqual(['trial_ending', 'receipt', 'renewal_reminder']);
    // The trial's reminder was timed by the days the API started the workflow with; only the renewal's asked the account.
    expect(await localActivityCount(subscriptionWorkflowId(subscription.id), 'reminderDays')).toBe(1);
    // For the replay test: a run with both reminders' timers, activities and email workflows' starts (recorded
    // before the days came with the start), and one whose first reminder's days came with it.
    await recordWorkflowHistories(
      world.app.temporal,
      subscriptionWorkflowId(subscription.id),
      'reminders-trial-renewal',
    );
    await recordWorkflowHistories(
      world.app.temporal,
      subscriptionWorkflowId(subscription.id),
      'reminders-days-from-start',
    );
  });

  it('switched off, or a trial shorter than the reminder: none is sent', async () => {
    const to = 'ada+no-reminders@example.com';
    const frozen = seconds('2025-03-01T09:00:00Z');
    const price = await recurringPrice(world.api, { unitAmount: 1000, interval: 'week' });
    await world.app.prisma.account.update({ where: { id: world.accountId }, data: { emailsOff: ['trial_ending'] } });
    try {
      const { clock, subscription } = await clockedSubscription(frozen, to, 5, { price, quantity: 1 });
      // Weekly: a 7-day renewal reminder would fall on the period's first instant, when the customer
      // has just been charged for it: none. The trial's is switched off.
      await advance(clock.id, frozen + 6 * DAY_S);
      await waitUntil(async () => (await caughtKinds(to)).includes('receipt'));
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(await caughtKinds(to)).toEqual(['receipt']);
      const emails = expectStatus(await world.api.get(`/emails?subscription=${subscription.id}`), 200, 'list');
      expect(emails.data.filter((email: { kind: string }) => email.kind === 'trial_ending')).toEqual([]);
    } finally {
      await world.app.prisma.account.update({ where: { id: world.accountId }, data: { emailsOff: [] } });
    }
  });
});

describe("a payment plan's declined installment", () => {
  it('emails the customer what failed and what is owed, once', async () => {
    const to = 'ada+plan@example.com';
    const customer = expectStatus(
      await world.api.post('/customers', { ...customerWithAddresses, email: to }),
      201,
      'customer',
    );
    const method = await addPaymentMethod(world.api, customer.id, cardBody(CARDS.declined));
    const plan = expectStatus(
      await world.api.post('/payment-plans', {
        customer: customer.id,
        total_amount: 40000,
        currency: 'usd',
        installments_count: 4,
        interval: 'month',
        payment_method: method.id,
      }),
      201,
      'POST /payment-plans',
    );
    const [notice] = await caughtMessages(world.api, to);
    expect(notice).toMatchObject({
      kind: 'installment_failed',
      subject: 'Payment failed for installment 1 of 4 of your payment plan with Babbage Reminders',
      attachments: [],
    });
    expect(notice.text).toContain('$100.00 could not be charged');
    expect(notice.text).toContain('Amount overdue: $100.00');
    expect(notice.text).toContain('12 St James Square');
    const emails = expectStatus(await world.api.get(`/emails?customer=${customer.id}`), 200, 'list');
    expect(emails.data).toEqual([
      expect.objectContaining({
        kind: 'installment_failed',
        payment_plan: plan.id,
        event: expect.stringMatching(/^evt_/),
      }),
    ]);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await caughtKinds(to)).toEqual(['installment_failed']);
  });
});
