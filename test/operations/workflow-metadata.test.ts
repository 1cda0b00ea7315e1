import type { Client, WorkflowHandle } from '@temporalio/client';
import { CHARGE_FAILED } from '../../src/payments/charge-failure';
import { emailConsumer } from '../../src/emails/email-trigger';
import { ensureRetentionSchedule } from '../../src/temporal/retention-schedule';
import { renewalAttemptKey } from '../../src/subscriptions/period-billing';
import { subscriptionWorkflowId } from '../../workflows/subscription-messages';
import { advanceClock, customerOnClock, subscribeOnClock } from '../support/clocks';
import { apiClient, createTestAccount, startWorkerApp, type WorkerApp } from '../support/harness';
import { historyView } from '../support/history';
import { addPaymentMethod, cardBody, CARDS } from '../support/payments';
import { expectStatus, recordWorkflowHistories, recurringPrice } from '../support/subscriptions';
import { screenshotTemporalUi, waitForRenderedText, workflowPage } from '../support/temporal-ui';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';
import { allowPrivateWebhookTargets, manualRelay, startedDelivery, waitUntil } from '../support/webhooks';

/**
 * What an operator reads of a workflow in the Temporal Web UI without a query (docs/operations.md, "The
 * Web UI"): every workflow the service starts carries a static summary and details (user metadata), the
 * subscription and payment-plan workflows keep their current details up to date, and a renewal's charge
 * declined inside the workflow task (a local activity, docs/decisions.md §39) is drawn failed as the
 * dunning retries are. On the suite's dev server and its Web UI in Chromium
 * (test-output/workflow-metadata-*.png); the metadata are payloads, encrypted by the codec like the rest.
 */

const START = Date.UTC(2026, 0, 15, 10, 0, 0) / 1000;
const METADATA_QUERY = '__temporal_workflow_metadata';
let stack: WorkerApp;

beforeAll(async () => {
  stack = await startWorkerApp('workflow-metadata', { paymentPlans: true });
});
afterAll(() => stack?.close());

/** The workflow's current details, as the Web UI's page reads them (its metadata query, decoded by the client's codec). */
async function currentDetails(handle: WorkflowHandle): Promise<string> {
  return (await handle.query<{ currentDetails: string }>(METADATA_QUERY)).currentDetails;
}

/** The encodings of the workflow's user metadata and of its metadata query's answer as Temporal stores and sends them. */
async function storedEncodings(client: Client, workflowId: string) {
  const execution = { workflowId };
  const encoding = (payload: { metadata?: Record<string, Uint8Array> | null } | null | undefined) =>
    Buffer.from(payload?.metadata?.encoding ?? []).toString();
  const described = await client.workflowService.describeWorkflowExecution({ namespace: 'default', execution });
  const queried = await client.workflowService.queryWorkflow({
    namespace: 'default',
    execution,
    query: { queryType: METADATA_QUERY },
  });
  return {
    summary: encoding(described.executionConfig?.userMetadata?.summary),
    details: encoding(described.executionConfig?.userMetadata?.details),
    currentDetails: encoding(queried.queryResult?.payloads?.[0]),
  };
}

it('a renewal declined in the workflow task is drawn failed; the subscription shows past_due in its current details and the list; its clock and its email explain themselves', async () => {
  const { api, app } = stack;
  const price = await recurringPrice(api, { unitAmount: 2500 });
  const owner = await customerOnClock(api, START);
  const subscription = await subscribeOnClock(api, owner, [{ price, quantity: 1 }], START);
  const declining = await addPaymentMethod(api, owner.customer.id, cardBody(CARDS.declined));
  expectStatus(await api.patch(`/subscriptions/${subscription.id}`, { default_payment_method: declining.id }), 200);
  const handle = app.temporal.workflow.getHandle(subscriptionWorkflowId(subscription.id));
  expect(await currentDetails(handle)).toContain('**Next charge**: renewal 2026-02-15 UTC');

  // The renewal, an hour after it fell due: attempt 1 declined, no retry yet (the first is a day later).
  const renewedAt = Date.UTC(2026, 1, 15, 11, 0, 0) / 1000;
  await advanceClock(api, owner.clock.id, renewedAt);
  const invoice = await app.prisma.invoice.findFirstOrThrow({
    where: { subscriptionId: subscription.id, billingReason: 'subscription_cycle' },
  });
  const label = `${invoice.number} (${invoice.id})`;
  const view = await historyView(handle);
  const charges = view.activities.filter((activity) => activity.type === 'chargeRenewalInvoice');
  const attempt = `charge invoice ${label} attempt 1 (renewal 2026-02-15 UTC)`;
  expect(charges.map(({ summary, local }) => [summary, local])).toEqual([
    [attempt, true],
    // Asked again of the charge activity, which the Web UI draws failed: the recorded attempt, nothing charged again.
    [`${attempt} FAILED: the recorded attempt, not charged again`, false],
  ]);
  const failure = { type: CHARGE_FAILED, message: 'charge attempt 1 FAILED (card_declined)' };
  expect(charges.map((charge) => charge.failure)).toEqual([failure, failure]);
  const [local, shown] = charges.map(
    (charge) => charge.result as { outcome: string; charge: { transactionId: string } },
  );
  expect(shown).toEqual(local);
  expect(shown).toMatchObject({ outcome: 'failed', failureCode: 'card_declined' });
  // Billing unchanged: one charge, one failed attempt on the invoice, one invoice.payment_failed.
  const payments = await app.prisma.transaction.findMany({ where: { invoiceId: invoice.id, type: 'payment' } });
  expect(payments.map((payment) => [payment.status, payment.attemptKey])).toEqual([
    ['failed', renewalAttemptKey(subscription.id, invoice.periodStart.getTime(), 1)],
  ]);
  expect(shown!.charge.transactionId).toBe(payments[0]!.id);
  expect(await app.prisma.invoice.findUniqueOrThrow({ where: { id: invoice.id } })).toMatchObject({ attemptCount: 1 });
  const failedEvents = await app.prisma.event.findMany({
    where: { accountId: stack.accountId, type: 'invoice.payment_failed', objectId: invoice.id },
  });
  expect(failedEvents).toHaveLength(1);

  // The replay test keeps this history: a run through patch declined-charge-shown-failed.
  await recordWorkflowHistories(app.temporal, handle.workflowId, 'declined-charge-shown-failed');

  // Current details: status and why, the period, the next charge and the last payment; encrypted like the summary.
  const details = await currentDetails(handle);
  expect(details).toContain(`**Status**: past_due: invoice ${label} unpaid, dunning retry 1 of 3 on 2026-02-16 UTC`);
  expect(details).toContain('**Period**: 2026-02-15 UTC to 2026-03-15 UTC');
  expect(details).toContain(`**Next charge**: dunning retry 1 of 3 on 2026-02-16 UTC (${label})`);
  expect(details).toContain(`**Last payment**: FAILED (card_declined): \\$25.00 on visa ****0002 for invoice ${label}`);
  expect(details).not.toContain(owner.customer.name);
  const description = await handle.describe();
  expect(await description.staticSummary()).toBe(
    `${owner.customer.id}: ${await productName(price)} 1 x $25.00 monthly`,
  );
  expect(await description.staticDetails()).not.toContain(owner.customer.name);
  expect(await storedEncodings(app.temporal, handle.workflowId)).toEqual({
    summary: 'binary/encrypted',
    details: 'binary/encrypted',
    currentDetails: 'binary/encrypted',
  });

  // The clock's workflow and the failed-payment email's say what they are.
  const clock = app.temporal.workflow.getHandle(`test-clock:${owner.clock.id}`).describe();
  expect(await (await clock).staticSummary()).toBe(
    `test clock ${owner.clock.id} advancing to 2026-02-15T11:00:00.000Z`,
  );
  expect(await (await clock).staticDetails()).toContain(
    '**Advance**: 2026-01-15T10:00:00.000Z to 2026-02-15T11:00:00.000Z',
  );
  const [failedEvent] = failedEvents;
  await emailConsumer(app.temporal, `unused-${stack.accountId}`).consume([
    { id: failedEvent!.id, accountId: failedEvent!.accountId, type: failedEvent!.type, data: failedEvent!.data },
  ]);
  const email = app.temporal.workflow.getHandle(`email:${failedEvent!.id}`);
  const emailDescription = await email.describe();
  expect(await emailDescription.staticSummary()).toBe('email for invoice.payment_failed');
  expect(await emailDescription.staticDetails()).toContain(`**Event**: ${failedEvent!.id} (invoice.payment_failed)`);
  await email.terminate('started on a task queue of no worker, to read its metadata');

  const { runId } = description;
  await screenshotTemporalUi(
    workflowPage(handle.workflowId, runId),
    'workflow-metadata-declined-renewal.png',
    async (page) => {
      // The event table's row of the charge activity that asked the declined attempt again: Activity Task Failed, in red.
      await page
        .getByText('charge attempt 1 FAILED (card_declined)', { exact: true })
        .first()
        .waitFor({ timeout: 60_000 });
    },
  );
  await screenshotTemporalUi(
    workflowPage(handle.workflowId, runId),
    'workflow-metadata-current-details.png',
    async (page) => {
      await page.getByText('User Metadata', { exact: true }).first().click({ timeout: 60_000 });
      await page.getByText('Current Details', { exact: true }).first().waitFor({ timeout: 60_000 });
      const contents = await waitForRenderedText(page, new RegExp(`past_due: invoice ${escaped(label)} unpaid`));
      // The decoded texts travel in the frames' URLs: ids, never the customer's name.
      expect(contents.join('\n')).toContain(owner.customer.id);
      expect(contents.join('\n')).not.toContain(owner.customer.name);
    },
  );
  // The list: BillingStatus added as a column (Configure Workflows Table), the subscription past_due.
  await screenshotTemporalUi(
    `workflows?query=${encodeURIComponent(`WorkflowId="${handle.workflowId}"`)}`,
    'workflow-metadata-list.png',
    async (page) => {
      await page.getByText(handle.workflowId, { exact: true }).first().waitFor({ timeout: 60_000 });
      // Configure Workflows Table: the unlabelled button before the pager's.
      await page.getByRole('button', { name: 'Previous', exact: true }).locator('xpath=preceding::button[1]').click();
      await page.getByRole('button', { name: 'Add BillingStatus column', exact: true }).click();
      for (const column of ['Run ID', 'End'])
        await page.getByRole('button', { name: `Remove ${column} column`, exact: true }).click();
      await page.getByRole('button', { name: 'Close Workflows Table configuration', exact: true }).click();
      await page.getByText('past_due', { exact: true }).first().waitFor({ timeout: 60_000 });
    },
    { width: 1900, height: 700 },
  );
}, 180_000);

/** `text` as a regular expression that matches it literally. */
const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

async function productName(price: string): Promise<string> {
  const product = expectStatus(await stack.api.get(`/prices/${price}`), 200).product as string;
  return expectStatus(await stack.api.get(`/products/${product}`), 200).name as string;
}

it('a payment plan keeps its current details: status, installments paid, the next one and the last payment', async () => {
  const { api, app } = stack;
  const customer = expectStatus(await api.post('/customers', { name: 'Plan Holder', email: 'plan@example.com' }), 201);
  const card = await addPaymentMethod(api, customer.id, cardBody(CARDS.succeeds));
  const plan = expectStatus(
    await api.post('/payment-plans', {
      customer: customer.id,
      total_amount: 40000,
      currency: 'USD',
      installments_count: 4,
      interval: 'month',
      payment_method: card.id,
    }),
    201,
  );
  const handle = app.temporal.workflow.getHandle(`payment-plan:${plan.id}`);
  const details = await waitUntil(async () => {
    const read = await currentDetails(handle).catch(() => '');
    return read.includes('**Next**: installment 2') ? read : undefined;
  });
  const installments = await app.prisma.paymentPlanInstallment.findMany({
    where: { planId: plan.id },
    orderBy: { number: 'asc' },
  });
  const day = (date: Date) => `${date.toISOString().slice(0, 10)} UTC`;
  expect(details).toContain('**Status**: active');
  expect(details).toContain('**Installments**: 1 of 4 paid');
  expect(details).toContain(`**Next**: installment 2 of 4 due ${day(installments[1]!.dueAt)}`);
  expect(details).toMatch(
    /\*\*Last payment\*\*: deposit \(installment 1 of 4\): succeeded: \\\$100\.00 on visa \*{4}4242/,
  );
  expect(details).not.toContain('Plan Holder');
  expect(details).not.toContain('plan@example.com');
  expect(await storedEncodings(app.temporal, handle.workflowId)).toMatchObject({ currentDetails: 'binary/encrypted' });
  const { runId } = await handle.describe();
  await screenshotTemporalUi(
    workflowPage(handle.workflowId, runId),
    'workflow-metadata-payment-plan.png',
    async (page) => {
      await page.getByText('User Metadata', { exact: true }).first().click({ timeout: 60_000 });
      const contents = await waitForRenderedText(page, /Installments: 1 of 4 paid/);
      expect(contents.join('\n')).toContain(customer.id);
      for (const customerData of ['Plan Holder', 'plan@example.com'])
        expect(contents.join('\n')).not.toContain(customerData);
    },
  );
});

describe('summaries and details of the other workflows the service starts', () => {
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    allowPrivateWebhookTargets();
    receiver = await startWebhookReceiver({ reply: 200 });
  });
  afterAll(() => receiver.close());

  it('webhook deliveries, the relay’s and a resend, and the retention schedule', async () => {
    const { app } = stack;
    // An account of its own: the relay dispatches no event of the tests above.
    const account = await createTestAccount(app.prisma, { name: 'Hooks' });
    const api = apiClient(app.baseUrl, account.apiKey);
    const destination = expectStatus(await api.post('/webhook/destination', { url: receiver.url }), 201);
    const customer = expectStatus(await api.post('/customers', { name: 'Hooked' }), 201);
    const [event] = await app.prisma.event.findMany({ where: { accountId: account.accountId, objectId: customer.id } });
    const relay = manualRelay(app.prisma, app.temporal, stack.worker.worker.options.taskQueue, () => [
      account.accountId,
    ]);
    await relay.runOnce();
    const delivery = await startedDelivery(app.temporal, event!.id, destination.id);
    const described = await delivery.describe();
    expect(await described.staticSummary()).toBe(`webhook ${event!.id} to ${destination.id}`);
    const details = (await described.staticDetails())!;
    expect(details).toMatch(/^\*\*Delivery\*\*: whd_/);
    expect(details).toContain(`**Event**: ${event!.id}`);
    expect(details).toMatch(/\*\*Retries after\*\*: \d+ s, \d+ s, \d+ (s|min), \d+ min, \d+ min/);

    // Delivered at once (the receiver answers 200): a resend may follow.
    await delivery.result();
    const [log] = expectStatus(await api.get(`/webhook/logs?event=${event!.id}`), 200).data;
    const resent = expectStatus(await api.post(`/webhook/logs/${log.id}/resend`), 202);
    const again = await app.temporal.workflow.getHandle(resent.workflow_id).describe();
    expect(await again.staticSummary()).toBe(`resend 1 of ${event!.id} to ${destination.id}`);
    expect(await again.staticDetails()).toContain(`**Delivery**: ${resent.id}`);

    const scheduleId = `retention-sweep-${account.accountId}`;
    await ensureRetentionSchedule(app.temporal, { scheduleId, taskQueue: 'nobody', everyMs: 3_600_000 });
    const schedule = app.temporal.schedule.getHandle(scheduleId);
    try {
      const { action } = await schedule.describe();
      expect(action).toMatchObject({ staticSummary: 'retention sweep every 60 min' });
      expect((action as { staticDetails?: string }).staticDetails).toContain(
        '**Deletes**: events, webhook delivery logs',
      );
    } finally {
      await schedule.delete();
    }
  });
});
