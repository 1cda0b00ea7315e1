import type { Client } from '@temporalio/client';
import type { Db } from '../db/prisma';
import { logger } from '../http/logger';
import { atTime } from '../lib/clock-time';
import type { PaymentGateway } from '../payments/gateway';
import { recordWorkflowStart, startRecordedWorkflow, type WorkflowStart } from '../temporal/workflow-starts';
import type { WorkflowDisplay } from '../temporal/workflow-display';
import type { TestClockBinding } from '../../workflows/test-clock-contract';
import type { SubscriptionCreated } from '../../workflows/subscription-messages';
import { periodBounds } from './billing-dates';
import { chargeRenewalInvoice, createRenewalInvoiceInTx, finalizeRenewalInvoiceInTx, type RenewalPeriod } from './renewal.service';
import { billingCycle, initialState, nextAction, type SubscriptionCreateSpec, type SubscriptionState } from './subscription-machine';
import { insertSubscription, insertSubscriptionInTx, persistSubscriptionInTx, projectColumnsInTx } from './subscription-projection.service';
import type { PriceObject } from '../catalog/price.schemas';
import { getSubscriptionObject } from './subscription.records';
import type { SubscriptionObject } from './subscription.schemas';
import { subscriptionWorkflowStart } from './subscription-workflow.client';

/**
 * POST /subscriptions after its checks (decisions.md §14): one transaction writes the subscription
 * (version 1, subscription.created), a first invoice due at once (created and finalized, as the
 * renewal would) and the start of its workflow (workflow_starts). A first invoice charged
 * automatically is then charged here, with the attempt key the workflow's own first attempt uses, so
 * the two never charge twice; the workflow is started after the commit, or after that charge (or the
 * creation wait), so that its first task usually finds the invoice paid.
 */

/** How long the creation answer waits for the first charge before answering 202 (billing pending). */
export const CREATION_WAIT_MS = 20_000;

export interface CreationDeps {
  prisma: Db;
  temporal: Client;
  taskQueue: string;
  gateway: PaymentGateway;
}

interface FirstInvoice {
  period: RenewalPeriod;
  invoiceId: string;
  charge: boolean;
}

async function writeSubscription(
  deps: CreationDeps,
  spec: SubscriptionCreateSpec,
  nowMs: number,
  testClock: TestClockBinding | null,
  display: WorkflowDisplay | undefined,
  prices: PriceObject[],
): Promise<{ state: SubscriptionState; start: WorkflowStart; first: FirstInvoice | null; object: SubscriptionObject | null }> {
  const initial: SubscriptionState = { ...initialState(spec, nowMs), version: 1 };
  const due = nextAction(initial);
  const billsNow = due?.kind === 'bill' && due.index === 0 && due.at <= nowMs;
  if (!billsNow) {
    // Nothing billed now: one statement, unless a price changed since the checks read it.
    const start = subscriptionWorkflowStart(deps.taskQueue, initial, testClock, display);
    const object = await insertSubscription(deps.prisma, initial, prices, start);
    if (object) return { state: initial, start, first: null, object };
  }
  return deps.prisma.$transaction(async (tx) => {
    const inserted = billsNow ? await insertSubscriptionInTx(tx, initial, prices) : null;
    const created = inserted ?? (await persistSubscriptionInTx(tx, { state: initial, event: { type: 'subscription.created' } }));
    if (!billsNow) {
      const start = subscriptionWorkflowStart(deps.taskQueue, initial, testClock, display);
      await recordWorkflowStart(tx, start);
      return { state: initial, start, first: null, object: created };
    }
    // The first period, invoiced here as the workflow's bill(0) would (same key, same renewal row): it finds it done.
    const { start: periodStart, end: periodEnd } = periodBounds(billingCycle(initial), 0);
    const period: RenewalPeriod = { accountId: initial.accountId, subscriptionId: initial.id, periodStart };
    const { invoiceId } = await createRenewalInvoiceInTx(tx, {
      ...period,
      periodEnd,
      customerId: initial.customerId,
      currency: initial.currency,
      collectionMethod: initial.collectionMethod,
      billingReason: 'subscription_create',
      items: initial.items,
    });
    // The row shows the period being billed; the workflow's bill(0) records it as billed.
    const state: SubscriptionState = { ...initial, version: 2, latestInvoiceId: invoiceId, currentPeriodStart: periodStart, currentPeriodEnd: periodEnd };
    await projectColumnsInTx(tx, state);
    const start = subscriptionWorkflowStart(deps.taskQueue, state, testClock, display);
    await recordWorkflowStart(tx, start);
    // Last: finalizing takes the account's invoice-number counter, held until the commit.
    const { status } = await finalizeRenewalInvoiceInTx(tx, { ...period, invoiceId });
    const first = { period, invoiceId, charge: status === 'open' && initial.collectionMethod === 'charge_automatically' };
    return { state, start, first, object: first.charge ? null : await getSubscriptionObject(tx, state.accountId, state.id) };
  });
}

/**
 * The first charge, bounded by the creation wait: false when it was still running then (it goes on,
 * and the workflow finishes it if this process dies) or failed here (the workflow's attempt 1 does it).
 */
async function chargeWithin(deps: CreationDeps, first: FirstInvoice, state: SubscriptionState, clockMs: number | undefined): Promise<boolean> {
  const charging = atTime(clockMs, () =>
    chargeRenewalInvoice(
      deps.prisma,
      deps.gateway,
      { ...first.period, invoiceId: first.invoiceId, attempt: 1, paymentMethodId: state.defaultPaymentMethodId },
      { receipt: false },
    ),
  ).then(
    () => true,
    (error: unknown) => {
      logger.warn({ err: error, subscriptionId: state.id }, 'first charge not finished by the API; the subscription workflow completes it');
      return false;
    },
  );
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), CREATION_WAIT_MS)));
  try {
    return await Promise.race([charging, waited]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The creation a request made before under the same id (an Idempotency-Key's, whose answer was never
 * stored: the process died after the commit), as that request would have answered it: billing is
 * pending while its first invoice, charged automatically, is still open (its workflow charges it,
 * with the attempt key of the creation's own charge). Null when there is none.
 */
export async function createdBefore(prisma: Db, accountId: string, id: string): Promise<SubscriptionCreated | null> {
  const row = await prisma.subscription.findFirst({ where: { id, accountId }, select: { collectionMethod: true, latestInvoiceId: true } });
  if (!row) return null;
  const invoice = row.latestInvoiceId ? await prisma.invoice.findFirst({ where: { id: row.latestInvoiceId, accountId }, select: { status: true } }) : null;
  return {
    subscription: await getSubscriptionObject(prisma, accountId, id),
    billingPending: row.collectionMethod === 'charge_automatically' && invoice?.status === 'open',
  };
}

export async function createSubscriptionRecords(
  deps: CreationDeps,
  spec: SubscriptionCreateSpec,
  nowMs: number,
  testClock: TestClockBinding | null,
  display: WorkflowDisplay | undefined,
  prices: PriceObject[],
): Promise<SubscriptionCreated> {
  const clockMs = testClock?.time;
  const { state, start, first, object } = await atTime(clockMs, () => writeSubscription(deps, spec, nowMs, testClock, display, prices));
  if (!first?.charge) {
    await startRecordedWorkflow(deps, start);
    return { subscription: object!, billingPending: false };
  }
  // Charged before the start, so that the workflow's first task finds the invoice paid and records the
  // period at once; the recorded start stands if this process dies first (the sweep starts it).
  const charged = await chargeWithin(deps, first, state, clockMs);
  await startRecordedWorkflow(deps, start);
  return { subscription: await getSubscriptionObject(deps.prisma, state.accountId, state.id), billingPending: !charged };
}
