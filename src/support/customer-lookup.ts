import type { z } from 'zod';
import type { Customer, Invoice, Transaction } from '../generated/prisma/client';
import type { customerReportSchema } from './customer-report.schemas';
import { formatMoney } from '../lib/money';
import { DAY_MS } from '../lib/durations';
import { nullableColumnValue } from '../lib/columns';
import { TRANSACTION_ORIGINS } from '../transactions';
import { OWED_STATUSES } from '../payment-plans';
import type { PlanWithDetails } from '../payment-plans';
import type { Action } from '../subscriptions';
import type { SubscriptionWithItems } from '../subscriptions';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { FINAL_PLAN_STATUSES, type PaymentPlanWorkflowState } from '../../workflows/payment-plan-contract';
import type { SubscriptionStateView } from '../../workflows/subscription-messages';
import type { CustomerActivity } from './customer-lookup.records';

/**
 * `npm run support -- customer <email|cus_id>`: "why was this customer charged, or not", in plain words
 * (docs/operations.md). Built from the database (customerActivity); the subscription and payment-plan
 * workflows' `state` query adds what only they know (the dunning schedule's next retry, the next
 * timer) when they answer. Every time is ISO-8601 in UTC (`Z`).
 */

/** What a workflow's `state` query answered, or why it did not (not started yet, Temporal down, skipped). */
export type WorkflowAnswer<T> = { state: T } | { unavailable: string };

export interface WorkflowAnswers {
  subscriptions: Map<string, WorkflowAnswer<SubscriptionStateView>>;
  plans: Map<string, WorkflowAnswer<PaymentPlanWorkflowState>>;
}

const iso = (date: Date | number | null | undefined): string | null =>
  date === null || date === undefined ? null : new Date(date).toISOString();

/** The report's shape is its HTTP answer's (customer-report.schemas.ts): one definition for both. */
export type CustomerReport = z.output<typeof customerReportSchema>;
export type SubscriptionView = CustomerReport['subscriptions'][number];
export type PlanView = CustomerReport['payment_plans'][number];
export type InvoiceView = CustomerReport['invoices'][number];
export type ChargeView = CustomerReport['charges'][number];
export type DunningView = SubscriptionView['dunning'][number];
export type Next = NonNullable<SubscriptionView['next']>;

function methodView(activity: CustomerActivity, id: string | null) {
  const method = id ? activity.paymentMethods.get(id) : undefined;
  return method ? { id: method.id, brand: method.cardBrand ?? method.bankName, last4: method.last4 } : null;
}

const methodWords = (method: { brand: string | null; last4: string } | null) =>
  method ? `${method.brand ?? 'payment method'} ****${method.last4}` : 'no payment method';

const REASON_WORDS: Record<string, string> = {
  subscription_create: 'first invoice of subscription',
  subscription_cycle: 'renewal of subscription',
  // A change's proration invoiced at once, or what a subscription ending with prorate owed (docs/decisions.md §25).
  subscription_update: 'proration of a change to subscription',
  manual: 'invoice',
};

const day = (date: Date) => date.toISOString().slice(0, 10);

/** What started an invoice's payment, in words, from its recorded origin (src/transactions/transaction-origin.ts). */
function originWords(charge: Transaction, invoice: Invoice): string | null {
  switch (nullableColumnValue(TRANSACTION_ORIGINS, charge.origin, 'transactions.origin')) {
    case 'api':
      return 'charged through the API';
    case 'dashboard':
      return 'charged from the dashboard';
    case 'hosted_invoice_page':
      return 'payment by the customer on the hosted invoice page';
    case 'hosted_checkout':
      return 'payment by the customer at checkout';
    case 'subscription_period':
      return invoice.billingReason === 'subscription_create' ? 'first charge' : 'renewal charge';
    case 'dunning_retry':
      return charge.dunningRetry ? `dunning retry ${charge.dunningRetry}` : 'dunning retry';
    case 'charge_after_resume':
      return 'charged again when the subscription resumed';
    case 'subscription_change':
      return 'charged at once for a change to the subscription';
    case null:
      return null;
  }
}

function chargeReason(charge: Transaction, invoice: Invoice | undefined, activity: CustomerActivity): string {
  const payment = activity.planPayments.get(charge.id);
  if (charge.type === 'refund' || charge.type === 'dispute')
    return charge.description ?? `refund of ${charge.sourceTransactionId ?? 'a payment'}`;
  if (payment) {
    const installments = `installment${payment.installmentNumbers.length > 1 ? 's' : ''} ${payment.installmentNumbers.join(', ')}`;
    return `payment plan ${payment.planId}, ${installments}${payment.deposit ? ' (deposit)' : ''}, ${payment.method} payment ${payment.id}`;
  }
  if (invoice) {
    const what = invoice.subscriptionId
      ? `${REASON_WORDS[invoice.billingReason] ?? invoice.billingReason} ${invoice.subscriptionId} for ${day(invoice.periodStart)} to ${day(invoice.periodEnd)}`
      : 'one-off invoice';
    // Payments recorded before origins were kept say only their attempt: its number alone does not tell a dunning
    // retry from the customer paying on the hosted invoice page.
    const origin = originWords(charge, invoice);
    return `invoice ${invoice.number ?? invoice.id} (${what}), attempt ${charge.attempt ?? 1}${origin ? `: ${origin}` : ''}`;
  }
  return charge.description ?? charge.type;
}

/**
 * What the processor said of a charge, in support staff's words: a pending entry with the processor's reference
 * is a bank debit processing or a charge waiting for the customer to authenticate (docs/decisions.md §40);
 * without one, or `unknown`, no answer came.
 */
function processorOutcome(charge: Transaction): ChargeView['processor']['outcome'] {
  if (charge.status === 'succeeded' || charge.status === 'failed') return charge.status;
  if (charge.status !== 'pending' || charge.gatewayReference === null) return 'no answer yet';
  return charge.failureCode === 'authentication_required' ? 'waiting for the customer to authenticate' : 'processing';
}

function chargeView(charge: Transaction, invoices: Map<string, Invoice>, activity: CustomerActivity): ChargeView {
  const invoice = charge.invoiceId ? invoices.get(charge.invoiceId) : undefined;
  return {
    id: charge.id,
    at: iso(charge.createdAt),
    type: charge.type,
    status: charge.status,
    amount: formatMoney(charge.amount, charge.currency),
    amount_cents: Number(charge.amount),
    currency: charge.currency,
    invoice: charge.invoiceId,
    invoice_number: invoice?.number ?? null,
    payment_plan: activity.planPayments.get(charge.id)?.planId ?? null,
    payment_method: methodView(activity, charge.paymentMethodId),
    origin: nullableColumnValue(TRANSACTION_ORIGINS, charge.origin, 'transactions.origin'),
    processor: {
      outcome: processorOutcome(charge),
      failure_code: charge.failureCode,
      failure_message: charge.failureMessage,
      reference: charge.gatewayReference,
    },
    reason: chargeReason(charge, invoice, activity),
  };
}

function invoiceView(invoice: Invoice): InvoiceView {
  return {
    id: invoice.id,
    number: invoice.number,
    status: invoice.status,
    billing_reason: invoice.billingReason,
    subscription: invoice.subscriptionId,
    total: formatMoney(invoice.total, invoice.currency),
    amount: Number(invoice.total),
    currency: invoice.currency,
    period: { start: iso(invoice.periodStart), end: iso(invoice.periodEnd) },
    created_at: iso(invoice.createdAt),
    finalized_at: iso(invoice.finalizedAt),
    due_date: iso(invoice.dueDate),
    paid_at: iso(invoice.paidAt),
    voided_at: iso(invoice.voidedAt),
  };
}

/** Dunning of the subscription's open invoices: from the workflow when it answered, else counted from the ledger. */
function dunningViews(
  row: SubscriptionWithItems,
  answer: WorkflowAnswer<SubscriptionStateView> | undefined,
  invoices: Map<string, Invoice>,
  activity: CustomerActivity,
): DunningView[] {
  if (answer && 'state' in answer) {
    return answer.state.dunning.map((entry) => {
      const exhausted = entry.attempts > entry.retryDays.length;
      return {
        invoice: entry.invoiceId,
        invoice_number: invoices.get(entry.invoiceId)?.number ?? null,
        charges_made: (entry.attemptOffset ?? 0) + entry.attempts,
        retries_scheduled: entry.retryDays.length,
        next_retry: exhausted
          ? null
          : entry.attempts === 0
            ? 'charge after resume'
            : `dunning retry ${entry.attempts} of ${entry.retryDays.length}`,
        next_retry_at: exhausted ? null : iso(entry.nextRetryAt),
        when_retries_fail: entry.outcome,
        source: 'workflow' as const,
      };
    });
  }
  if (row.status !== 'past_due') return [];
  const retryDays = activity.dunning.retry_days;
  return [...invoices.values()]
    .filter(
      (invoice) =>
        invoice.subscriptionId === row.id &&
        invoice.status === 'open' &&
        invoice.collectionMethod === 'charge_automatically',
    )
    .map((invoice) => {
      const { attempts, firstFailedAt } = activity.invoiceAttempts.get(invoice.id) ?? {
        attempts: 0,
        firstFailedAt: null,
      };
      const days = retryDays[attempts - 1];
      return {
        invoice: invoice.id,
        invoice_number: invoice.number,
        charges_made: attempts,
        retries_scheduled: retryDays.length,
        next_retry: days === undefined ? null : `dunning retry ${attempts} of ${retryDays.length}`,
        next_retry_at: days === undefined || !firstFailedAt ? null : iso(firstFailedAt.getTime() + days * DAY_MS),
        when_retries_fail: activity.dunning.outcome,
        source: 'database' as const,
      };
    });
}

const ACTION_WORDS: Record<Action['kind'], string> = {
  bill: 'renewal: invoice the next period and charge it',
  retry: 'dunning retry',
  start: 'starts',
  end_trial: 'trial ends: first invoice and charge',
  cancel: 'cancels',
  expire: 'ends (end_date)',
};

function subscriptionNext(
  row: SubscriptionWithItems,
  answer: WorkflowAnswer<SubscriptionStateView> | undefined,
  dunning: DunningView[],
): Next | null {
  if (answer && 'state' in answer) {
    const action = answer.state.nextAction;
    if (!action) return null;
    if (action.kind === 'retry') {
      const entry = dunning.find((view) => view.invoice === action.invoiceId);
      return {
        what: `${entry?.next_retry ?? 'dunning retry'} of invoice ${entry?.invoice_number ?? action.invoiceId}`,
        at: iso(action.at),
      };
    }
    return { what: ACTION_WORDS[action.kind], at: iso(action.at) };
  }
  // From the row: the workflow's own timer is the authority (docs/operations.md); this is what the row implies.
  switch (row.status) {
    case 'scheduled':
      return { what: 'starts', at: iso(row.startDate) };
    case 'trialing':
      return { what: ACTION_WORDS.end_trial, at: iso(row.trialEnd) };
    case 'paused':
      return { what: 'nothing until resumed (no invoices while paused)', at: null };
    case 'canceled':
    case 'expired':
      return null;
    default: {
      const retry = dunning.find((view) => view.next_retry_at);
      const renewal = row.cancelAtPeriodEnd
        ? { what: 'cancels at the period end', at: iso(row.currentPeriodEnd) }
        : { what: ACTION_WORDS.bill, at: iso(row.currentPeriodEnd) };
      const cancel = row.cancelAt ? { what: 'cancels', at: iso(row.cancelAt) } : null;
      const retryNext = retry
        ? {
            what: `${retry.next_retry} of invoice ${retry.invoice_number ?? retry.invoice} (estimated)`,
            at: retry.next_retry_at,
          }
        : null;
      return (
        [retryNext, cancel, renewal]
          .filter((next): next is Next => next !== null && next.at !== null)
          .sort((a, b) => a.at!.localeCompare(b.at!))[0] ?? null
      );
    }
  }
}

function workflowNote<T>(answer: WorkflowAnswer<T> | undefined) {
  if (!answer) return null;
  return 'state' in answer ? ({ answered: true } as const) : ({ answered: false, reason: answer.unavailable } as const);
}

function subscriptionView(
  row: SubscriptionWithItems,
  answers: WorkflowAnswers,
  invoices: Map<string, Invoice>,
  activity: CustomerActivity,
): SubscriptionView {
  const workflowId = `subscription:${row.id}`;
  const answer = answers.subscriptions.get(workflowId);
  const state = answer && 'state' in answer ? answer.state : null;
  const dunning = dunningViews(row, answer, invoices, activity);
  const ended = row.status === 'canceled' || row.status === 'expired';
  return {
    id: row.id,
    workflow_id: workflowId,
    // The row's status (past_due while an invoice is dunned); the workflow's when it answered.
    status: state?.billingStatus ?? row.status,
    items: [...row.items].sort((a, b) => a.position - b.position).map((item) => `${item.quantity} x ${item.priceId}`),
    current_period: { start: iso(row.currentPeriodStart), end: iso(row.currentPeriodEnd) },
    next_billing_at: state
      ? iso(state.nextBillingAt)
      : ended || row.status === 'paused'
        ? null
        : iso(row.currentPeriodEnd ?? row.trialEnd ?? row.startDate),
    cancel_at: iso(row.cancelAt),
    cancel_at_period_end: row.cancelAtPeriodEnd,
    paused_at: iso(row.pausedAt),
    ended_at: iso(row.endedAt),
    dunning,
    next: subscriptionNext(row, answer, dunning),
    workflow: workflowNote(answer),
  };
}

const PLAN_ACTION_WORDS: Record<NonNullable<PaymentPlanWorkflowState['nextAction']>, string> = {
  charge_installment: 'charge the next installment',
  mark_overdue: 'mark the installment overdue (not collected when due)',
  default: 'the plan defaults (past_due too long)',
};

function planView(plan: PlanWithDetails, answers: WorkflowAnswers): PlanView {
  const answer = answers.plans.get(plan.workflowId);
  const state = answer && 'state' in answer ? answer.state : null;
  const next = plan.installments.find((row) => OWED_STATUSES.includes(row.status));
  const defaultsAt =
    plan.status === 'past_due' && plan.pastDueAt
      ? iso(plan.pastDueAt.getTime() + plan.defaultAfterDays * DAY_MS)
      : null;
  const final = ['completed', 'canceled', 'defaulted'].includes(plan.status);
  let nextStep: Next | null = null;
  if (state?.nextAction && state.nextWakeAt !== null)
    nextStep = { what: PLAN_ACTION_WORDS[state.nextAction], at: iso(state.nextWakeAt) };
  else if (!state && !final && next)
    nextStep = {
      what: `installment ${next.number} due (${plan.paymentMethodId ? 'charged automatically' : 'no card on the plan: collected by the merchant'})`,
      at: iso(next.dueAt),
    };
  if (!final && defaultsAt && (!nextStep?.at || defaultsAt < nextStep.at) && !state)
    nextStep = { what: PLAN_ACTION_WORDS.default, at: defaultsAt };
  return {
    id: plan.id,
    workflow_id: plan.workflowId,
    status: plan.status,
    total: formatMoney(plan.totalAmount, plan.currency),
    installments_paid: plan.installments.filter((row) => row.status === 'paid').length,
    installments_count: plan.installmentsCount,
    next_installment: next
      ? {
          number: next.number,
          amount: formatMoney(next.amount, plan.currency),
          due_at: iso(next.dueAt),
          status: next.status,
          failure: next.failureCode
            ? `${next.failureCode}${next.failureMessage ? `: ${next.failureMessage}` : ''}`
            : null,
        }
      : null,
    past_due_since: iso(plan.pastDueAt),
    defaults_at: defaultsAt,
    next: nextStep,
    workflow: workflowNote(answer),
  };
}

function chargeSentence(charge: ChargeView): string {
  const on = methodWords(charge.payment_method);
  const answer =
    charge.processor.outcome === 'failed'
      ? `declined (${charge.processor.failure_code ?? 'failed'}${charge.processor.failure_message ? `: ${charge.processor.failure_message}` : ''})`
      : charge.processor.outcome === 'succeeded'
        ? 'succeeded'
        : 'sent, no answer from the processor yet';
  const what = charge.type === 'refund' ? `Refund of ${charge.amount}` : `Charge of ${charge.amount} on ${on}`;
  return `${what} at ${charge.at}: ${answer}. Why: ${charge.reason}.`;
}

function summaryOf(report: Omit<CustomerReport, 'summary'>): string[] {
  const lines: string[] = [];
  const last = report.charges.find((charge) => charge.type === 'payment');
  lines.push(
    last ? `Last ${chargeSentence(last).replace(/^Charge/, 'charge')}` : 'No charge was ever made to this customer.',
  );
  for (const subscription of report.subscriptions) {
    for (const entry of subscription.dunning) {
      const next = entry.next_retry
        ? `next: ${entry.next_retry}${entry.next_retry_at ? ` at ${entry.next_retry_at}` : ''}${entry.source === 'database' ? ' (estimated from the ledger; the workflow did not answer)' : ''}`
        : 'every retry was made';
      lines.push(
        `Subscription ${subscription.id} is ${subscription.status}: invoice ${entry.invoice_number ?? entry.invoice} unpaid after ${entry.charges_made} charge${entry.charges_made === 1 ? '' : 's'}; ${next}; if the retries fail: ${entry.when_retries_fail}.`,
      );
    }
    if (subscription.status === 'paused')
      lines.push(
        `Subscription ${subscription.id} is paused since ${subscription.paused_at}: nothing is invoiced or charged until it is resumed.`,
      );
  }
  for (const plan of report.payment_plans) {
    if (plan.status === 'past_due')
      lines.push(
        `Payment plan ${plan.id} is past_due since ${plan.past_due_since}: it defaults at ${plan.defaults_at} unless paid.`,
      );
    if (plan.status === 'pending')
      lines.push(`Payment plan ${plan.id} is pending: its deposit (installment 1) is not collected yet.`);
  }
  const live = report.subscriptions.some((row) => !['canceled', 'expired'].includes(row.status));
  if (live && !report.customer.default_payment_method)
    lines.push(
      'The customer has no default payment method: automatic charges of subscriptions without one of their own cannot be made.',
    );
  if (report.customer.deleted_at)
    lines.push(`The customer was deleted at ${report.customer.deleted_at}: nothing more is charged.`);
  const next = report.next[0];
  lines.push(next ? `Next: ${next.what} (${next.of}) at ${next.at ?? 'no date'}.` : 'Nothing is scheduled.');
  return lines;
}

const endedSubscription = (status: string) => status === 'canceled' || status === 'expired';

/** The workflow ids of the customers' live subscriptions and payment plans: those worth a state query. */
function liveWorkflowIds(activities: CustomerActivity[]): { subscriptions: string[]; plans: string[] } {
  return {
    subscriptions: activities.flatMap((activity) =>
      activity.subscriptions.filter((row) => !endedSubscription(row.status)).map((row) => `subscription:${row.id}`),
    ),
    plans: activities.flatMap((activity) =>
      activity.plans
        .filter((plan) => !FINAL_PLAN_STATUSES.includes(plan.status as never))
        .map((plan) => plan.workflowId),
    ),
  };
}

/** Every live workflow noted unanswered, for `reason`: the report then reads the database alone. */
export function unansweredWorkflows(activities: CustomerActivity[], reason: string): WorkflowAnswers {
  const ids = liveWorkflowIds(activities);
  return {
    subscriptions: new Map(ids.subscriptions.map((id) => [id, { unavailable: reason }])),
    plans: new Map(ids.plans.map((id) => [id, { unavailable: reason }])),
  };
}

/**
 * The `state` query of each live subscription and payment-plan workflow of the customers, each within
 * `timeoutMs`; one that cannot answer (its first task waits for its start, Temporal is down) is noted
 * with the reason, and the report falls back on the database for it.
 */
export async function askWorkflows(
  client: Client,
  activities: CustomerActivity[],
  timeoutMs: number,
): Promise<WorkflowAnswers> {
  const ids = liveWorkflowIds(activities);
  const answers: WorkflowAnswers = { subscriptions: new Map(), plans: new Map() };
  async function ask<T>(workflowId: string): Promise<WorkflowAnswer<T>> {
    try {
      return await client.withDeadline(Date.now() + timeoutMs, async () => {
        const handle = client.workflow.getHandle(workflowId);
        // A workflow still waiting on its start delay has run no task: it cannot answer a query yet.
        const { historyLength, executionTime } = await handle.describe();
        if (historyLength <= 1 && executionTime && executionTime.getTime() > Date.now())
          return { unavailable: `waiting for its first step at ${executionTime.toISOString()} (docs/operations.md)` };
        return { state: await handle.query<T>('state') };
      });
    } catch (error) {
      if (error instanceof WorkflowNotFoundError)
        return { unavailable: 'no such workflow (not started yet, or its history was deleted)' };
      const message = (error as Error).message.split('\n')[0] ?? '';
      return {
        unavailable: /deadline|timed? ?out/i.test(message)
          ? `no answer within ${timeoutMs / 1000} s (a workflow waiting for its first step answers once that task has run: docs/operations.md)`
          : message,
      };
    }
  }
  await Promise.all([
    ...ids.subscriptions.map(async (id) => answers.subscriptions.set(id, await ask<SubscriptionStateView>(id))),
    ...ids.plans.map(async (id) => answers.plans.set(id, await ask<PaymentPlanWorkflowState>(id))),
  ]);
  return answers;
}

export function buildCustomerReport(
  customer: Customer,
  activity: CustomerActivity,
  answers: WorkflowAnswers,
): CustomerReport {
  const invoices = new Map(activity.invoices.map((invoice) => [invoice.id, invoice]));
  const subscriptions = activity.subscriptions.map((row) => subscriptionView(row, answers, invoices, activity));
  const plans = activity.plans.map((plan) => planView(plan, answers));
  const next = [
    ...subscriptions.flatMap((row) => (row.next ? [{ ...row.next, of: `subscription ${row.id}` }] : [])),
    ...plans.flatMap((row) => (row.next ? [{ ...row.next, of: `payment plan ${row.id}` }] : [])),
  ].sort((a, b) => (a.at ?? '9999').localeCompare(b.at ?? '9999'));
  const report = {
    customer: {
      id: customer.id,
      account: customer.accountId,
      name: customer.name,
      email: customer.email,
      created_at: iso(customer.createdAt),
      deleted_at: iso(customer.deletedAt),
      default_payment_method: methodView(activity, activity.defaultPaymentMethodId),
    },
    subscriptions,
    payment_plans: plans,
    invoices: activity.invoices.map(invoiceView),
    charges: activity.charges.map((charge) => chargeView(charge, invoices, activity)),
    next,
  };
  const { customer: shown, ...sections } = report;
  return { customer: shown, summary: summaryOf(report), ...sections };
}

/** The report as text for a terminal: a summary in words, then each section. */
export function formatCustomerReport(report: CustomerReport): string {
  const out: string[] = [];
  const { customer } = report;
  out.push(
    `Customer ${customer.id} (account ${customer.account}): ${customer.name}, ${customer.email ?? 'no email'}${customer.deleted_at ? `, DELETED ${customer.deleted_at}` : ''}`,
  );
  out.push(
    `  default payment method: ${customer.default_payment_method ? `${methodWords(customer.default_payment_method)} (${customer.default_payment_method.id})` : 'none'}`,
  );
  out.push('', 'In short (times UTC, ISO-8601):', ...report.summary.map((line) => `  ${line}`));
  out.push('', `Subscriptions (${report.subscriptions.length}):`);
  for (const row of report.subscriptions) {
    out.push(`  ${row.id}  ${row.status}  ${row.items.join(', ')}  (workflow ${row.workflow_id})`);
    out.push(
      `    current period ${row.current_period.start ?? '-'} to ${row.current_period.end ?? '-'}; next billing ${row.next_billing_at ?? '-'}`,
    );
    if (row.cancel_at || row.cancel_at_period_end) out.push(`    cancels ${row.cancel_at ?? 'at the period end'}`);
    for (const entry of row.dunning) {
      out.push(
        `    dunning: invoice ${entry.invoice_number ?? entry.invoice}, ${entry.charges_made} charge(s) made, ${entry.retries_scheduled} retries scheduled; ` +
          `${entry.next_retry ? `next ${entry.next_retry} at ${entry.next_retry_at ?? '-'}` : 'no retry left'}${entry.source === 'database' ? ' (estimated)' : ''}; then ${entry.when_retries_fail}`,
      );
    }
    if (row.next) out.push(`    next: ${row.next.what} at ${row.next.at ?? '-'}`);
    if (row.workflow && !row.workflow.answered)
      out.push(`    (workflow state not available: ${row.workflow.reason}; shown from the database)`);
  }
  out.push('', `Payment plans (${report.payment_plans.length}):`);
  for (const plan of report.payment_plans) {
    out.push(
      `  ${plan.id}  ${plan.status}  ${plan.total}, ${plan.installments_paid} of ${plan.installments_count} installments paid  (workflow ${plan.workflow_id})`,
    );
    const next = plan.next_installment;
    if (next)
      out.push(
        `    next installment ${next.number}: ${next.amount} due ${next.due_at} (${next.status}${next.failure ? `, ${next.failure}` : ''})`,
      );
    if (plan.defaults_at) out.push(`    past_due since ${plan.past_due_since}; defaults at ${plan.defaults_at}`);
    if (plan.next) out.push(`    next: ${plan.next.what} at ${plan.next.at ?? '-'}`);
    if (plan.workflow && !plan.workflow.answered)
      out.push(`    (workflow state not available: ${plan.workflow.reason}; shown from the database)`);
  }
  out.push('', `Invoices (newest ${report.invoices.length}):`);
  for (const invoice of report.invoices) {
    const when = invoice.paid_at
      ? `paid ${invoice.paid_at}`
      : invoice.voided_at
        ? `voided ${invoice.voided_at}`
        : invoice.finalized_at
          ? `finalized ${invoice.finalized_at}`
          : `created ${invoice.created_at}`;
    out.push(
      `  ${invoice.number ?? '(draft)'}  ${invoice.id}  ${invoice.status}  ${invoice.total}  ${invoice.billing_reason}${invoice.subscription ? ` ${invoice.subscription}` : ''}  ${when}`,
    );
  }
  out.push('', `Charges (newest ${report.charges.length}):`);
  for (const charge of report.charges) {
    const answer =
      charge.processor.outcome === 'failed'
        ? `failed ${charge.processor.failure_code ?? ''}: ${charge.processor.failure_message ?? ''}`.trimEnd()
        : charge.processor.outcome;
    out.push(
      `  ${charge.at}  ${charge.id}  ${charge.type}  ${charge.amount}  ${methodWords(charge.payment_method)}  ${answer}`,
    );
    out.push(`    why: ${charge.reason}`);
  }
  return out.join('\n');
}
