import crypto from 'node:crypto';
import { CHARGE_FAILED } from '../../src/payments/charge-failure';
import { ApplicationFailure } from '@temporalio/common';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import type { Page } from 'playwright-core';
import { REQUEST_REFUSED_FAILURE } from '../../workflows/payment-plan-contract';
import { customerEmailFilter, customerEmailHash } from '../../src/temporal/email-hash';
import {
  BILLING_CUSTOMER_EMAIL,
  BILLING_CUSTOMER_EMAIL_HASH,
  BILLING_STATUS,
} from '../../src/temporal/search-attributes';
import { PAYMENT_PLAN_STATE_QUERY, type PaymentPlanWorkflowState } from '../../workflows/payment-plan-contract';
import { stateQuery, subscriptionWorkflowId } from '../../workflows/subscription-messages';
import { startTestWorker, type ApiClient, type TestApp, startWorkerApp } from '../support/harness';
import { historyView } from '../support/history';
import { addPaymentMethod, cardBody, CARDS, customerWithCard } from '../support/payments';
import {
  advanceTo,
  createSubscription,
  DAY_MS,
  expectStatus,
  recordHistories,
  recurringPrice,
  settled,
  startSubscriptionWorld,
  unix,
  withFirstTaskDelayed,
  workflowHandle,
} from '../support/subscriptions';
import { screenshotTemporalUi, waitForRenderedText, workflowPage } from '../support/temporal-ui';
import { waitUntil } from '../support/webhooks';

/**
 * Workflows that explain themselves in the Temporal Web UI: a static summary and details from the
 * start, and BillingCustomerEmailHash (a keyed hash, never the address) to find them from the
 * customer's email. On the suite's dev server, whose Web UI a headless Chromium screenshots
 * (test-output/workflow.png): the UI decodes the encrypted payloads through the suite's codec endpoint.
 */
let app: TestApp;

/** A screenshot of a workflow's history page in the suite's Web UI (test-output/<file>), once `ready` has found what the page must show. */
function screenshotWorkflowPage(workflowId: string, runId: string, file: string, ready: (page: Page) => Promise<void>) {
  return screenshotTemporalUi(workflowPage(workflowId, runId), file, ready);
}
let worker: Awaited<ReturnType<typeof startTestWorker>>;
let api: ApiClient;

beforeAll(async () => {
  ({ app, worker, api } = await startWorkerApp('workflow-display', { paymentPlans: true }));
});
afterAll(async () => {
  await worker?.stop();
  await app?.close();
});

it('a subscription workflow carries its summary, details and the customer email, found by a search on the email (first-step: before and after its first task)', async () => {
  const email = `Ada.${crypto.randomUUID().slice(0, 8)}@Example.com`;
  const customer = expectStatus(await api.post('/customers', { name: 'Acme', email }), 201);
  await addPaymentMethod(api, customer.id, cardBody(CARDS.succeeds));
  const price = await recurringPrice(api, { unitAmount: 2500 });
  const product = expectStatus(await api.get(`/prices/${price}`), 200).product as string;
  const productName = expectStatus(await api.get(`/products/${product}`), 200).name as string;
  // With SUBSCRIPTION_FIRST_TASK=first-step, what an operator sees of a subscription before its first task.
  const subscription = await withFirstTaskDelayed(() =>
    createSubscription(api, {
      customer: customer.id,
      items: [{ price, quantity: 2 }],
      trial_days: 0,
      start_date: unix(Date.now()),
    }),
  );

  const workflowId = subscriptionWorkflowId(subscription.id);
  const handle = app.temporal.workflow.getHandle(workflowId);
  const description = await handle.describe();
  // Ids, never the customer's name or email: the Web UI carries the decoded text in its /render URLs.
  expect(await description.staticSummary()).toBe(`${customer.id}: ${productName} 2 x $25.00 monthly`);
  const details = (await description.staticDetails())!;
  expect(details).toContain(`**Customer**: ${customer.id}`);
  for (const customerData of ['Acme', email]) expect(details).not.toContain(customerData);
  expect(details).toContain('**Bills**: \\$50.00 monthly before tax (charge_automatically)');
  expect(description.typedSearchAttributes.get(BILLING_CUSTOMER_EMAIL_HASH)).toBe(customerEmailHash(email));
  expect(description.typedSearchAttributes.get(BILLING_CUSTOMER_EMAIL)).toBeUndefined();

  const found = await waitUntil(
    async () => {
      const ids: string[] = [];
      for await (const execution of app.temporal.workflow.list({ query: customerEmailFilter(email) }))
        ids.push(execution.workflowId);
      return ids.length > 0 ? ids : undefined;
    },
    60_000,
    500,
  );
  expect(found).toEqual([workflowId]);

  // Nothing is due before the renewal: the details name that first step, and the workflow has not run yet.
  const day = (ms: number) => `${new Date(ms).toISOString().slice(0, 10)} UTC`;
  expect(details).toContain(`**First step**: renewal ${day(subscription.current_period_end * 1000)}`);
  expect(await historyView(handle)).toMatchObject({ workflowTasks: 0, timers: [], activities: [] });
  // What an operator sees of it before its first step (decisions.md §14): "Execution Start" a period
  // ahead, and on the Queries tab the Web UI's "make sure you have at least one worker running".
  await screenshotWorkflowPage(workflowId, description.runId, 'workflow-before-first-step.png', async (page) => {
    await page.getByText(workflowId).first().waitFor({ state: 'attached', timeout: 60_000 });
    await page.getByText('Queries', { exact: true }).first().click();
    await page.getByText('Workflow task is not scheduled yet').first().waitFor({ timeout: 60_000 });
  });
  // An update (here a change to what it already is) runs it at once.
  expectStatus(
    await api.patch(`/subscriptions/${subscription.id}`, { collection_method: 'charge_automatically' }),
    200,
  );

  // The timeline: each activity and timer says what it is for; the charge's result names amount, card and transaction.
  const view = await waitUntil(
    async () => {
      const read = await historyView(handle);
      return read.timers.length > 0 ? read : undefined;
    },
    60_000,
    250,
  );
  const state = await handle.query(stateQuery);
  const [invoice] = await app.prisma.invoice.findMany({ where: { subscriptionId: subscription.id } });
  const transaction = await app.prisma.transaction.findFirstOrThrow({
    where: { invoiceId: invoice!.id, type: 'payment' },
  });
  // (The update's change restarts the wait: a second timer of the same renewal may follow the first.)
  expect([...new Set(view.timers)]).toEqual([`renewal ${day(state.nextBillingAt!)}`]);
  // The API made, finalized and charged the first invoice and recorded the period before it started the
  // workflow (decisions.md §14): the only activity answers the PATCH, which changed nothing (no new version,
  // no event), and the input shows the API's charge. The account's reminder days came with the start
  // (docs/decisions.md §31): none is read before the wait.
  expect(view.activities.map(({ type, summary }) => [type, summary])).toEqual([
    ['persistSubscription', 'nothing changed: answer the subscription as recorded (version 3)'],
  ]);
  expect(await app.prisma.transaction.count({ where: { invoiceId: invoice!.id, type: 'payment' } })).toBe(1);
  expect(view.input).toMatchObject({
    created: { id: subscription.id, version: 3, latestInvoiceId: invoice!.id },
    firstCharge: {
      transactionId: transaction.id,
      status: 'succeeded',
      amount: 5000,
      currency: 'USD',
      amountFormatted: '$50.00',
      brand: 'visa',
      last4: '4242',
      gatewayReference: transaction.gatewayReference,
      failureCode: null,
      invoice: { id: invoice!.id, number: invoice!.number },
      description: `succeeded: $50.00 on visa ****4242 for invoice ${invoice!.number} (${invoice!.id}), ${transaction.id} (${transaction.gatewayReference})`,
    },
  });
  // The state query: ISO times beside the milliseconds.
  expect(state.times).toMatchObject({
    nextBillingAt: new Date(state.nextBillingAt!).toISOString(),
    currentPeriodStart: new Date(state.currentPeriodStart!).toISOString(),
    'nextAction.at': new Date(state.nextAction!.at).toISOString(),
  });
  expect(state.billingStatus).toBe('active');

  await screenshotWorkflowPage(workflowId, description.runId, 'workflow.png', async (page) => {
    // The event history lists the timer and activities by their summaries.
    await page
      .getByText(`renewal ${day(state.nextBillingAt!)}`)
      .first()
      .waitFor({ state: 'attached', timeout: 60_000 });
    // The "User Metadata" tab shows the summary and details (and the current details), for the picture.
    await page.getByText('User Metadata', { exact: true }).first().click({ timeout: 30_000 });
    const contents = await waitForRenderedText(
      page,
      new RegExp(`${customer.id}: ${productName} 2 x \\$25\\.00 monthly`),
    );
    for (const customerData of ['Acme', email]) expect(contents.join('\n')).not.toContain(customerData);
  });
}, 180_000);

it('a payment plan workflow carries its summary and the customer email; its deposit charge and next installment read in its history', async () => {
  const email = `grace.${crypto.randomUUID().slice(0, 8)}@example.com`;
  const customer = expectStatus(await api.post('/customers', { name: 'Grace', email }), 201);
  const card = await addPaymentMethod(api, customer.id, cardBody(CARDS.succeeds));
  const plan = expectStatus(
    await api.post('/payment-plans', {
      customer: customer.id,
      total_amount: 50000,
      currency: 'USD',
      installments_count: 5,
      interval: 'month',
      payment_method: card.id,
    }),
    201,
  );
  const handle = app.temporal.workflow.getHandle(`payment-plan:${plan.id}`);
  const description = await handle.describe();
  expect(await description.staticSummary()).toBe(`${customer.id}: $500.00 in 5 installments monthly`);
  expect(description.typedSearchAttributes.get(BILLING_CUSTOMER_EMAIL_HASH)).toBe(customerEmailHash(email));

  const view = await waitUntil(
    async () => {
      const read = await historyView(handle);
      return read.timers.length > 0 ? read : undefined;
    },
    60_000,
    250,
  );
  const installments = await app.prisma.paymentPlanInstallment.findMany({
    where: { planId: plan.id },
    orderBy: { number: 'asc' },
  });
  const day = (date: Date) => `${date.toISOString().slice(0, 10)} UTC`;
  expect(view.timers).toEqual([`installment 2 of 5 due ${day(installments[1]!.dueAt)}`]);
  const charge = view.activities.find((activity) => activity.type === 'chargePaymentPlanInstallment')!;
  expect(charge.summary).toBe('charge deposit (installment 1 of 5) attempt 1');
  const transaction = await app.prisma.transaction.findFirstOrThrow({
    where: { customerId: customer.id, type: 'payment' },
  });
  expect((charge.result as { outcome: string; charge: unknown }).outcome).toBe('succeeded');
  expect((charge.result as { charge: unknown }).charge).toMatchObject({
    transactionId: transaction.id,
    status: 'succeeded',
    amount: 10000,
    amountFormatted: '$100.00',
    brand: 'visa',
    last4: '4242',
  });
  expect(view.activities[0]!.summary).toBe(`read plan ${plan.id}`);

  const state = await handle.query<PaymentPlanWorkflowState>(PAYMENT_PLAN_STATE_QUERY);
  expect(state.times).toEqual({ nextWakeAt: installments[1]!.dueAt.toISOString() });
  expect((await handle.describe()).typedSearchAttributes.get(BILLING_STATUS)).toBe('active');
});

/**
 * What an operator sees of things that went wrong (docs/operations.md, "The Web UI"): a declined charge
 * says FAILED with its code, amount, card and invoice in its result and in the wait that follows it, and
 * a request the workflow refuses fails its update (the Web UI draws it failed, with the refusal's
 * message). Screenshots: test-output/workflow-failed-charge.png and workflow-refused-update.png.
 */
it('a declined charge reads FAILED and a refused request fails its update, in the history and the Web UI', async () => {
  const customer = expectStatus(await api.post('/customers', { name: 'Hopper', email: 'hopper@example.com' }), 201);
  const card = await addPaymentMethod(api, customer.id, cardBody(CARDS.declined));
  const plan = expectStatus(
    await api.post('/payment-plans', {
      customer: customer.id,
      total_amount: 30000,
      currency: 'USD',
      installments_count: 3,
      interval: 'month',
      payment_method: card.id,
    }),
    201,
  );
  const handle = app.temporal.workflow.getHandle(`payment-plan:${plan.id}`);
  const view = await waitUntil(
    async () => {
      const read = await historyView(handle);
      return read.timers.length > 0 ? read : undefined;
    },
    60_000,
    250,
  );
  const charge = view.activities.find((activity) => activity.type === 'chargePaymentPlanInstallment')!;
  const result = charge.result as { outcome: string; charge: { description: string } };
  expect(result.outcome).toBe('failed');
  expect(charge.failure).toEqual({
    type: CHARGE_FAILED,
    message: 'installment 1 charge attempt 1 FAILED (card_declined)',
  });
  expect(result.charge.description).toMatch(/^FAILED \(card_declined\): \$100\.00 on visa \*{4}0002/);

  const refused = await handle.executeUpdate('resolveDeposit', { args: [{}] }).catch((thrown: unknown) => thrown);
  expect(refused).toBeInstanceOf(WorkflowUpdateFailedError);
  const cause = (refused as WorkflowUpdateFailedError).cause as ApplicationFailure;
  expect(cause.type).toBe(REQUEST_REFUSED_FAILURE);
  expect((await handle.describe()).status.name).toBe('RUNNING');

  const { runId } = await handle.describe();
  await screenshotWorkflowPage(handle.workflowId, runId, 'workflow-failed-charge.png', async (page) => {
    await page.getByText('charge deposit (installment 1 of 3) attempt 1').first().click({ timeout: 60_000 });
    await page
      .getByText(/FAILED \(card_declined\)/)
      .first()
      .waitFor({ state: 'attached', timeout: 60_000 });
  });
  await screenshotWorkflowPage(handle.workflowId, runId, 'workflow-refused-update.png', async (page) => {
    // The update's row in the event table: "Outcome Failure" with the refusal's message, drawn in red; opened for the picture.
    await page.getByText('Outcome Failure').first().waitFor({ state: 'attached', timeout: 60_000 });
    await page.getByText('Workflow Execution Update Completed').first().click({ timeout: 30_000 });
    await page
      .getByText(/no_deposit_attempt/)
      .first()
      .waitFor({ state: 'attached', timeout: 60_000 });
  });
}, 180_000);

/**
 * Dunning on a time-skipping server: BillingStatus reads past_due while the invoice is retried and
 * active again once a retry pays it; the retry's timer and charges say which retry they are, and
 * each charge result names card and transaction. The history is kept for the replay test
 * (dunning-past-due.json: the new BillingStatus path, patch 'billing-status-past-due').
 */
it('dunning: BillingStatus past_due while retried, back to active when a retry pays; retries explained in history', async () => {
  const world = await startSubscriptionWorld();
  try {
    const { customer } = await customerWithCard(world.api, CARDS.declined);
    const now = await world.env.currentTimeMs();
    const price = await recurringPrice(world.api, { unitAmount: 3000 });
    const subscription = await createSubscription(world.api, {
      customer: customer.id,
      items: [{ price, quantity: 1 }],
      trial_days: 0,
      start_date: unix(now),
    });
    const handle = workflowHandle(world, subscription.id);
    const state = (await settled(world, subscription.id))!;
    const [entry] = state.dunning;
    expect(entry).toMatchObject({ attempts: 1, retryDays: [1, 3, 5] });
    expect((await handle.describe()).typedSearchAttributes.get(BILLING_STATUS)).toBe('past_due');
    expect(state.billingStatus).toBe('past_due');
    expect(state.times).toMatchObject({
      'dunning.0.nextRetryAt': new Date(entry!.nextRetryAt).toISOString(),
      'nextAction.at': new Date(entry!.nextRetryAt).toISOString(),
      nextBillingAt: new Date(state.nextBillingAt!).toISOString(),
    });
    // (The time-skipping server has no visibility list: the filter `BillingStatus = "past_due"` is the dev server's, docs/operations.md.)
    const day = (ms: number) => `${new Date(ms).toISOString().slice(0, 10)} UTC`;
    const declined = await historyView(handle);
    const firstCharge = declined.activities.find((activity) => activity.type === 'chargeRenewalInvoice')!;
    expect(firstCharge.result).toMatchObject({
      outcome: 'failed',
      failureCode: 'card_declined',
      charge: {
        status: 'failed',
        amount: 3000,
        amountFormatted: '$30.00',
        brand: 'visa',
        last4: '0002',
        failureCode: 'card_declined',
      },
    });
    // Drawn failed in the Web UI: the activity failed, its message naming the processor's answer and no card detail.
    expect(firstCharge.failure).toEqual({ type: CHARGE_FAILED, message: 'charge attempt 1 FAILED (card_declined)' });
    const invoice = await world.app.prisma.invoice.findUniqueOrThrow({ where: { id: entry!.invoiceId } });
    expect((firstCharge.result as { charge: { description: string } }).charge.description).toMatch(
      new RegExp(
        `^FAILED \\(card_declined\\): \\$30\\.00 on visa \\*{4}0002 for invoice ${invoice.number} \\(${invoice.id}\\), txn_`,
      ),
    );
    const failed = await world.app.prisma.transaction.findFirstOrThrow({
      where: { invoiceId: entry!.invoiceId, status: 'failed' },
    });
    expect((firstCharge.result as { charge: { transactionId: string } }).charge.transactionId).toBe(failed.id);

    const goodCard = await addPaymentMethod(world.api, customer.id, cardBody(CARDS.succeeds));
    expectStatus(
      await world.api.patch(`/subscriptions/${subscription.id}`, { default_payment_method: goodCard.id }),
      200,
      'PATCH',
    );
    const recovered = (await advanceTo(world, subscription.id, entry!.failedAt + DAY_MS + 3_600_000))!;
    expect(recovered.dunning).toEqual([]);
    expect(recovered.billingStatus).toBe('active');
    expect((await handle.describe()).typedSearchAttributes.get(BILLING_STATUS)).toBe('active');

    const view = await historyView(handle);
    const charges = view.activities.filter((activity) => activity.type === 'chargeRenewalInvoice');
    // Invoices by number beside their id, as people know them.
    const label = `${invoice.number} (${invoice.id})`;
    expect(charges.map((charge) => charge.summary)).toEqual([
      `charge invoice ${label} attempt 1 (renewal ${day(entry!.periodStart)})`,
      `charge invoice ${label} attempt 2 (dunning retry 1 of 3)`,
    ]);
    expect(charges[1]!.failure).toBeUndefined();
    expect(charges[1]!.result).toMatchObject({
      outcome: 'paid',
      charge: { status: 'succeeded', brand: 'visa', last4: '4242', amount: 3000 },
    });
    expect(view.timers).toContain(
      `dunning retry 1 of 3 on ${day(entry!.nextRetryAt)} (${label}), after charge attempt 1 FAILED`,
    );
    expect(view.timers.at(-1)).toBe(`renewal ${day(recovered.nextBillingAt!)}`);
    await recordHistories(world, subscription.id, 'dunning-past-due');
  } finally {
    await world.close();
  }
}, 180_000);
